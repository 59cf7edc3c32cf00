#pragma once
// Choices and numbers that the mouse wheel changes only once the user has clicked or tabbed into
// them. Over an unfocused combo box or spin box the wheel scrolls the panel under it instead:
// an artist scrolling the settings must not flip Loading to Eager on the way.
//
//   stageload::studio::guardWheel(panel);   // every combo and spin box in `panel`, now
//
// Call it again after adding fields (it is idempotent). GUI thread only.

class QWidget;

namespace stageload::studio {

/// The combo boxes and spin boxes under `root` (itself included) take focus by click or Tab
/// only, and hand a wheel to the scroll area they sit in while they do not have focus.
void guardWheel(QWidget* root);

}  // namespace stageload::studio
