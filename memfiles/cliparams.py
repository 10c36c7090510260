"""Command-line values converted without pydantic, so a `mem` command starts in tens of milliseconds.

typer (0.2x) converts every option value, even an absent one, through a pydantic TypeAdapter built
on first use: importing pydantic and building the adapters costs ~100 ms per run, more than the
rest of `mem recall`. mem's options are plain: str, int and float (with min/max), Path, Literal
choices and lists of those. `install()` converts exactly those values here and hands everything
else (other types, parsers, path checks, clamping, and any value this module does not accept, such
as `-k x`) to typer's own conversion, so results and error messages are typer's. On a typer without
this machinery (older or newer internals) it does nothing and typer works as it always does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
_CHECKS = ("exists", "resolve_path", "allow_dash", "path_type", "writable", "clamp", "parser")


class _Unsupported(Exception):
    """This value is typer's to convert (or to refuse, in its own words)."""


def install() -> bool:
    """Convert plain option values without pydantic from now on; False when typer's internals differ."""
    try:
        from typer import _coercion, core
    except ImportError:
        return False
    found: Callable[[Any], Any] | None = getattr(core, "build_runtime_param", None)
    base = getattr(_coercion, "RuntimeParam", None)
    if found is None or base is None or getattr(core, "_mem_plain", False):
        return getattr(core, "_mem_plain", False) is True
    original: Callable[[Any], Any] = found

    @dataclass(frozen=True)
    class PlainRuntimeParam(base):  # type: ignore[misc, valid-type]
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return convert(self.annotation, self.parameter_info, value)
            except _Unsupported:
                return original(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    file_param = getattr(_coercion, "FileRuntimeParam", None)

    def build(descriptor: Any) -> Any:
        if descriptor.file_annotation is not None and file_param is not None:
            # typer's own file handling, minus the pydantic adapters it imports before looking at the type
            # (~60 ms on every `mem episode`, --from-json given or not)
            info, file_annotation = descriptor.parameter_info, descriptor.file_annotation
            return file_param(parameter_info=info, annotation=descriptor.annotation, file_annotation=file_annotation)
        if descriptor.file_annotation is not None or not _plain(descriptor.annotation, descriptor.parameter_info):
            return original(descriptor)
        return PlainRuntimeParam(descriptor.parameter_info, descriptor.annotation, descriptor)

    setattr(core, "build_runtime_param", build)  # noqa: B010 - a private name of typer, replaced on purpose
    setattr(core, "_mem_plain", True)  # noqa: B010
    return True


def _plain(annotation: Any, info: Any) -> bool:
    if any(getattr(info, name, None) for name in _CHECKS) or not (info.file_okay and info.dir_okay):
        return False
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation) or (Any,)
    return annotation in (str, int, float, bool, Path) or get_origin(annotation) is Literal


def convert(annotation: Any, info: Any, value: Any) -> Any:
    """One option's value as mem's plain types want it; raises _Unsupported for anything else."""
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        items = value if isinstance(value, list | tuple) else [value]
        return [_leaf(item, info, v) for v in items]
    return _leaf(annotation, info, value)


def _leaf(annotation: Any, info: Any, value: Any) -> Any:
    if annotation is bool and isinstance(value, bool):
        return value
    if annotation in (int, float) and type(value) is annotation:  # a default, such as `--episodes 5`
        return _in_range(value, info)
    if not isinstance(value, str):
        raise _Unsupported
    if annotation is str:
        return value
    if annotation is Path and value:
        if os.path.exists(value) and not os.access(value, os.R_OK):
            raise _Unsupported  # typer says it is not readable
        return Path(value)
    if get_origin(annotation) is Literal and info.case_sensitive:
        if value in get_args(annotation):
            return value
        raise _Unsupported
    if annotation is int and _INT.fullmatch(value):
        return _in_range(int(value), info)
    if annotation is float and _FLOAT.fullmatch(value):
        return _in_range(float(value), info)
    raise _Unsupported


def _in_range(number: float, info: Any) -> Any:
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        raise _Unsupported  # typer words the range error
    return number
