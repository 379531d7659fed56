"""TF1's ``tf.app``: ``run`` parses the command line's flags and calls the program's
``main`` with what is left, and ``flags`` is ``ds.flags``.

    def main(argv):          # argv: the program name, positional args, unknown flags
        ...
    if __name__ == "__main__":
        ds.app.run()

As TF1's (absl's ``app.run`` with TF's parser): unknown flags are not an error but are
passed on to ``main``; ``--help`` prints the flags and exits with status 1; a flag that
cannot be parsed prints "FATAL Flags parsing error: ..." and exits with status 1; the
process exits with ``sys.exit(main(argv))``.
"""

from __future__ import annotations

import sys

from . import flags

__all__ = ["run", "flags"]

_HELP = ("--help", "-help", "-h", "-?", "--helpshort", "--helpfull")


def run(main=None, argv=None):
    """Parses ``argv`` (default ``sys.argv``) into ``ds.flags.FLAGS``, then exits with
    ``main(remaining argv)``'s return (``main`` defaults to ``__main__.main``).  Raises
    ``SystemExit`` always."""
    main = main or sys.modules["__main__"].main
    argv = sys.argv if argv is None else list(argv)
    if _asks_for_help(argv):
        print(flags.FLAGS.get_help(prog=argv[0] if argv else None))
        sys.exit(1)
    try:
        remaining = flags.FLAGS(argv, known_only=True)
    except flags.Error as e:
        print(f"FATAL Flags parsing error: {e}\nPass --help to see help on flags.",
              file=sys.stderr)
        sys.exit(1)
    sys.exit(main(remaining))


def _asks_for_help(argv) -> bool:
    args = list(argv[1:])
    if "--" in args:
        args = args[:args.index("--")]
    return any(arg in _HELP for arg in args) and "help" not in flags.FLAGS


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("app", name)
