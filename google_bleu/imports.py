"""Imports on first use: :func:`lazy_module` and :func:`import_optional`."""

from __future__ import annotations

import importlib
import sys
from typing import Any


def import_optional(module: str, extra: str | None, needed_by: str, how: str | None = None) -> Any:
    """``module``, imported, or an ``ImportError`` naming what needs it and the extra (or ``how``) that installs it.

    Example:
        >>> import_optional("not_a_package", "torch", "this example")
        Traceback (most recent call last):
        ...
        ImportError: this example needs not_a_package: pip install 'google-bleu[torch]' (from a clone: pip install '.[torch]')
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        package = module.split(".")[0]
        if error.name is None or error.name.split(".")[0] != package:
            raise  # the package is there but broken inside: its own message says why
        install = how or f"pip install 'google-bleu[{extra}]' (from a clone: pip install '.[{extra}]')"
        raise ImportError(f"{needed_by} needs {package}: {install}") from None


class _Lazy:
    """A module imported when one of its attributes is first read; its attributes are then copied here."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self.__dict__.update(vars(module))
        return getattr(module, attribute)


def lazy_module(name: str) -> Any:
    """The module ``name``, imported when first used (numpy costs tens of milliseconds, a short input needs none).

    Example:
        >>> lazy_module("json").dumps([1])
        '[1]'
    """
    return sys.modules.get(name) or _Lazy(name)
