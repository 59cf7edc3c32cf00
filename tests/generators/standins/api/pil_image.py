"""Stand-in for PIL.Image: open() as a context manager, enough for the wrappers."""
import os


class _Image:
    stand_in_image = True

    def __init__(self, path):
        if not os.path.isfile(path):
            raise FileNotFoundError(path)
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def convert(self, mode):
        return self


def open(path):  # noqa: A001 (PIL's name)
    return _Image(path)
