"""What a generated GEMM header dispatches to, read back from its C++ text.

The header (``benchspace cutlass header``, generators/templates/gemm_kernels.hh.j2) lists its
entries in ``enum class GemmKernel``: the CUTLASS kernels (cutlass_library procedural names)
first, then the pinned cuBLASLt configurations (enumerators ``cublaslt_<id>_<tile>_...``, named
``cublaslt:id=..;tile=..;...`` in ``kGemmKernelNames``, attributes in ``kPinned``), then
``cublas`` last. A header written before pinned entries existed has no ``kNumPinned``: all its
entries but ``cublas`` are CUTLASS kernels. Everything here is checked against the header's own
tables (``kGemmKernelCount``, the names array, ``kPinned``) so that a hand-edited or truncated
header is refused with the line to fix rather than compiled into a library that disagrees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchspace.harness.errors import HeaderError

CUBLAS = "cublas"
PINNED_FIELDS = (
    "id",
    "tile",
    "splitk",
    "reduction",
    "swizzle",
    "custom",
    "stages",
    "inner",
    "cluster",
)
"""The pinned key's attributes, in the order of the interface (and of ``CublasLtConfig``)."""
FIX = "regenerate it with `benchspace cutlass header`"

_ENUM = re.compile(r"enum\s+class\s+GemmKernel\s*:\s*int32_t\s*\{(?P<body>.*?)\};", re.S)
_ENUMERATOR = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<code>-?\d+)\s*,?\s*$")
_NAMES = re.compile(r"kGemmKernelNames\s*\[[^\]]*\]\s*=\s*\{(?P<body>.*?)\};", re.S)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_NAMESPACE = re.compile(r"^namespace\s+(?P<ns>[A-Za-z_][\w:]*)\s*\{", re.M)
_ENV = re.compile(r'std::getenv\("(?P<env>[A-Za-z_]\w*)"\)')
_PINNED_ROWS = re.compile(r"kPinned\s*\[[^\]]*\]\s*=\s*\{(?P<body>.*?)\n\};", re.S)
_ROW = re.compile(r"\{\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\}")


@dataclass(frozen=True, kw_only=True, slots=True)
class PinnedEntry:
    """A pinned cuBLASLt configuration of the header."""

    code: int
    enumerator: str
    key: str
    """``cublaslt:id=..;tile=..;...``: its name in ``kGemmKernelNames`` (and the driver's)."""
    values: tuple[int, ...]
    """The nine attributes, in :data:`PINNED_FIELDS` order."""


@dataclass(frozen=True, kw_only=True, slots=True)
class LibraryHeader:
    """The entries of one generated header, in enum order, and where its C++ lives."""

    source: str
    namespace: str
    env_var: str
    cutlass: tuple[str, ...]
    """CUTLASS kernels, enum codes 0 .. len - 1."""
    pinned: tuple[PinnedEntry, ...]
    has_pinned_block: bool
    """The header declares kNumPinned / kPinned (the pinned interface), even with none."""
    cublaslt_version: int
    """``kCublasLtVersion`` (0 without pinned entries or without the block)."""

    @property
    def count(self) -> int:
        """``kGemmKernelCount``: the kernels, the pinned entries and ``cublas``."""
        return len(self.cutlass) + len(self.pinned) + 1


def _int_constant(text: str, name: str) -> int | None:
    found = re.search(rf"\b{name}\s*=\s*(-?\d+)\s*;", text)
    if found is None:
        return None
    return int(found.group(1))


def pinned_key(values: tuple[int, ...]) -> str:
    """The ``cublaslt:id=..;...`` key of nine attributes (the driver's config text)."""
    return "cublaslt:" + ";".join(f"{f}={v}" for f, v in zip(PINNED_FIELDS, values, strict=True))


def _pinned_values(key: str) -> tuple[int, ...] | None:
    if not key.startswith("cublaslt:"):
        return None
    parts = key.removeprefix("cublaslt:").split(";")
    if len(parts) != len(PINNED_FIELDS):
        return None
    values = []
    for part, field in zip(parts, PINNED_FIELDS, strict=True):
        name, _, value = part.partition("=")
        if name != field or not re.fullmatch(r"-?\d+", value):
            return None
        values.append(int(value))
    return tuple(values)


def _enumerators(text: str, source: str) -> list[str]:
    enum = _ENUM.search(text)
    if enum is None:
        raise HeaderError(
            f"{source}: no `enum class GemmKernel : int32_t {{...}};` found; give the GEMM kernel "
            f"header (include/benchspace/gemm_kernels.hh) or {FIX}"
        )
    names: list[str] = []
    for number, line in enumerate(enum.group("body").splitlines()):
        line = line.split("//")[0]
        if not line.strip():
            continue
        found = _ENUMERATOR.match(line)
        if found is None:
            raise HeaderError(
                f"{source}: GemmKernel line {number}: {line.strip()!r} is not `name = code,`; {FIX}"
            )
        if int(found.group("code")) != len(names):
            raise HeaderError(
                f"{source}: GemmKernel.{found.group('name')} = {found.group('code')}, expected "
                f"{len(names)} (codes run 0, 1, 2, ...); {FIX}"
            )
        names.append(found.group("name"))
    if not names or names[-1] != CUBLAS:
        raise HeaderError(f"{source}: GemmKernel does not end with `{CUBLAS}`; {FIX}")
    return names


def _names_array(text: str, source: str, count: int) -> list[str]:
    found = _NAMES.search(text)
    if found is None:
        raise HeaderError(f"{source}: no kGemmKernelNames array found; {FIX}")
    names = _STRING.findall(found.group("body"))
    declared = _int_constant(text, "kGemmKernelCount")
    if declared != count or len(names) != count:
        raise HeaderError(
            f"{source}: GemmKernel has {count} entries but kGemmKernelCount is {declared} and "
            f"kGemmKernelNames holds {len(names)}; {FIX}"
        )
    return names


def _pinned_rows(text: str, source: str) -> list[tuple[int, ...]]:
    found = _PINNED_ROWS.search(text)
    if found is None:
        raise HeaderError(f"{source}: kNumPinned is declared but no kPinned table found; {FIX}")
    body = "\n".join(line.split("//")[0] for line in found.group("body").splitlines())
    return [tuple(int(v) for v in row.split(",")) for row in _ROW.findall(body)]


def parse_header(text: str, source: str) -> LibraryHeader:
    """The header's entries; a :class:`HeaderError` naming the line to fix otherwise."""
    enumerators = _enumerators(text, source)
    names = _names_array(text, source, len(enumerators))
    namespace = _NAMESPACE.search(text)
    if namespace is None:
        raise HeaderError(f"{source}: no `namespace X {{` found; {FIX}")
    env = _ENV.search(text)
    first = _int_constant(text, "kFirstPinned")
    num = _int_constant(text, "kNumPinned")
    has_block = num is not None
    if has_block != (first is not None):
        raise HeaderError(f"{source}: declares only one of kFirstPinned and kNumPinned; {FIX}")
    pinned: list[PinnedEntry] = []
    n_cutlass = len(enumerators) - 1
    if first is not None and num is not None:
        if num < 0 or first < 0 or first + num != len(enumerators) - 1:
            raise HeaderError(
                f"{source}: kFirstPinned = {first}, kNumPinned = {num} do not end just before "
                f"`{CUBLAS}` (code {len(enumerators) - 1}); {FIX}"
            )
        rows = _pinned_rows(text, source) if num > 0 else []
        if len(rows) != num:
            raise HeaderError(
                f"{source}: kPinned holds {len(rows)} rows, kNumPinned is {num}; {FIX}"
            )
        for offset, row in enumerate(rows):
            code = first + offset
            values = _pinned_values(names[code])
            expected = "cublaslt_" + "_".join(str(v) for v in row)
            if values != row or len(row) != len(PINNED_FIELDS) or enumerators[code] != expected:
                raise HeaderError(
                    f"{source}: pinned entry {code} ({enumerators[code]}, {names[code]!r}) does "
                    f"not match its kPinned row {{{', '.join(map(str, row))}}}; {FIX}"
                )
            pinned.append(
                PinnedEntry(code=code, enumerator=enumerators[code], key=names[code], values=row)
            )
        n_cutlass = first
    cutlass = tuple(enumerators[:n_cutlass])
    for code, name in enumerate(cutlass):
        if names[code] != name:
            raise HeaderError(
                f"{source}: kGemmKernelNames[{code}] is {names[code]!r} but GemmKernel {code} is "
                f"{name}; {FIX}"
            )
        if name.startswith("cublaslt_"):
            raise HeaderError(
                f"{source}: GemmKernel.{name} looks like a pinned cuBLASLt entry but the header "
                f"has no kNumPinned; {FIX}"
            )
    version = _int_constant(text, "kCublasLtVersion") if has_block else 0
    return LibraryHeader(
        source=source,
        namespace=namespace.group("ns"),
        env_var=env.group("env") if env else "",
        cutlass=cutlass,
        pinned=tuple(pinned),
        has_pinned_block=has_block,
        cublaslt_version=version or 0,
    )
