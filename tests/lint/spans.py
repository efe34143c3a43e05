"""Test helper: the exact Location of a snippet in a source text, as the frontends must report it."""

from rmqlint.facts import Location


def span(source: str, snippet: str, path: str, occurrence: int = 1) -> Location:
    """The exact location of the n-th occurrence of `snippet` in `source` (1-based, end column exclusive)."""
    index = -1
    for _ in range(occurrence):
        index = source.index(snippet, index + 1)
    line = source.count("\n", 0, index) + 1
    column = index - (source.rfind("\n", 0, index) + 1) + 1
    end = index + len(snippet)
    end_line = source.count("\n", 0, end) + 1
    end_column = end - (source.rfind("\n", 0, end) + 1) + 1
    return Location(path, line, column, end_line, end_column)
