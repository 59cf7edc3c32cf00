"""What issue 31 asks of a scene's results (report.judge's dicts), in one place for the report,
its goals and its floor.

    measures.share_at_goal(results)   # the share with front IoU >= GOAL_IOU
    measures.shadow_kept(r)           # the ground shadow kept
    measures.back_faults(r)           # features repeated on the back, parts apart lost from behind
"""

GOAL_IOU = 0.97
APART_SHARE = 0.002  # parts apart from the body larger than this share of the subject must stay
SHADOW_KEPT = 0.25  # a ground shadow is kept when the front view covers more than this share of it


def share_at_goal(results):
    """The share of `results` whose front IoU reaches GOAL_IOU, 0..1."""
    return sum(1 for r in results if r["front_iou"] >= GOAL_IOU) / max(1, len(results))


def shadow_kept(r):
    """True when the front view kept the scene's ground shadow."""
    return r.get("shadow_kept", 0) > SHADOW_KEPT


def back_faults(r):
    """How many of the scene's features the back repeats plus how many parts apart it loses
    from behind (backview.judge_back's lists; 0 where the back was not judged)."""
    return len(r.get("features_repeated", [])) + len(r.get("apart_lost", []))
