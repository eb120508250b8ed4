"""The ``python -m catena`` command line.

Subcommands:

* ``info``: print versions, plugins (loaded or failed, with the reason),
  devices and configuration problems; the same as
  :func:`catena.print_runtime_info`.
"""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='python -m catena',
        description='catena: a define-by-run deep-learning framework with Chainer\'s API.')
    commands = parser.add_subparsers(dest='command', metavar='COMMAND')
    info = commands.add_parser(
        'info', help='print versions, plugins, devices and configuration problems',
        description='Print catena\'s and Python\'s versions, every plugin (loaded, or '
                    'FAILED with the reason), the devices and configuration problems.')
    info.add_argument('-v', '--verbose', action='store_true',
                      help='also list the hooks that each plugin implements')
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit status.

    Args:
        argv: The arguments after the program name (default: ``sys.argv[1:]``).
    """
    parser = _parser()
    args = parser.parse_args(argv)  # exits 2 with a message on an unknown command
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == 'info':
        from catena import _runtime_info

        _runtime_info.print_runtime_info(sys.stdout, verbose=args.verbose)
        return 0
    parser.error(f'unknown command {args.command!r}')  # pragma: no cover - argparse catches it
    return 2  # pragma: no cover


if __name__ == '__main__':
    sys.exit(main())
