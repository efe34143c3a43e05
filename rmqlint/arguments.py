"""The command lines of rmqlint and rmqplan: argparse, with usage errors a person can act on at once.

A usage error is one line per problem, each starting with the command (`rmqlint: ...`, `rmqplan simulate: error:
...`), and exit status 2. Where argparse (Python 3.11) only says what is wrong, these say what was meant:
- an unknown option names the closest known ones: `rmqlint: unknown option --formt: did you mean --format?`, and
  an option another linter spells differently names ours (`--output-format`, ruff's, is `--format`);
- an unknown option is the error even when argparse would first complain that a required one is missing:
  `rmqplan simulate --flet f` says `unknown option --flet: did you mean --fleet?`, not `required: --fleet`;
- an invalid choice (a subcommand, a format) names the closest choice: `invalid choice: 'simulat': did you mean
  'simulate'?`.
"""

from __future__ import annotations

import argparse
import sys

from rmqlint.suggestions import closest

# Options of other linters people type from habit -> ours (when the parser has it)
OTHER_SPELLINGS = {
    "--output-format": "--format",
    "--extend-select": "--select",
    "--extend-ignore": "--ignore",
}
_REQUIRED = "the following arguments are required: "


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are `PROG: [error_label]message` lines with suggestions, exit 2 (no usage
    block: `--help` shows it). Subparsers made with `parser_class=` of a subclass behave the same."""

    error_label = ""  # rmqplan's lines read `rmqplan simulate: error: ...`

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        unknown = self._unknown_options(extras)
        if unknown:  # here, not in the parent parser: this parser knows what the options should have been
            self._fail(self._unknown_lines(unknown))
        return namespace, extras

    def error(self, message: str):
        lines = [message]
        if message.startswith(_REQUIRED):
            unknown = self._unknown_options(getattr(self, "_given", []))
            if unknown:
                lines = self._unknown_lines(unknown)
                meant = {m for option in unknown for m in self._meant(option)}
                missing = [name for name in message[len(_REQUIRED):].split(", ") if name not in meant]
                if missing:  # a required option no typo explains is still missing
                    lines.append(_REQUIRED + ", ".join(missing))
        self._fail(lines)

    def _check_value(self, action, value):
        """argparse's check of a choice, naming the closest one (the only change)."""
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError:
            choices = [str(c) for c in action.choices]
            found = closest(str(value), choices)
            hint = f": did you mean {found[0]!r}?" if found else ""
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{hint} (choose from {', '.join(map(repr, choices))})") from None

    def _fail(self, lines: list[str]):
        self.exit(2, "".join(f"{self.prog}: {self.error_label}{line}\n" for line in lines))

    def _known_options(self) -> list[str]:
        return [option for action in self._actions for option in action.option_strings]

    def _unknown_options(self, tokens: list[str]) -> list[str]:
        """The option names among `tokens` this parser does not know (before a `--`, after which all is
        positional), in order, each once."""
        if "--" in tokens:
            tokens = tokens[:tokens.index("--")]
        known = self._known_options()
        out: list[str] = []
        for token in tokens:
            name = token.split("=", 1)[0]
            if not self._looks_like_option(name) or name in out or name in known:
                continue
            if name.startswith("--") and self.allow_abbrev and any(k.startswith(name) for k in known):
                continue  # an abbreviation argparse takes (or calls ambiguous itself)
            if not name.startswith("--") and name[:2] in known:
                continue  # a short option with its value attached: -ofile
            out.append(name)
        return out

    def _looks_like_option(self, token: str) -> bool:
        if len(token) < 2 or token[0] not in self.prefix_chars:
            return False
        try:
            float(token)  # a negative number is a value
            return False
        except ValueError:
            return True

    def _meant(self, option: str) -> list[str]:
        known = self._known_options()
        other = OTHER_SPELLINGS.get(option)
        if other in known:
            return [other]
        return closest(option, [k for k in known if k.startswith("--")], n=3)

    def _unknown_lines(self, unknown: list[str]) -> list[str]:
        lines = []
        for option in unknown:
            meant = self._meant(option)
            hint = f": did you mean {' or '.join(meant)}?" if meant else f" (see {self.prog} --help)"
            lines.append(f"unknown option {option}{hint}")
        return lines
