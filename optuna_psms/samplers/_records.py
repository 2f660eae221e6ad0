"""The per-trial record a sampler writes: its schema, its storage and its validation.

A record is one JSON object (:class:`Stored`, schema version :data:`VERSION`). Its text goes
to the system attr ``psms:rec`` when it fits in :data:`CHUNK` characters, otherwise to
``psms:rec:0`` ... ``psms:rec:{k-1}`` followed by ``psms:rec:n = k`` (written last, so a
reader never sees half a record). Optuna stores an attr value as JSON, which escapes each
``"`` as ``\\"``; with at most :data:`CHUNK` ASCII characters a stored value stays under
64 KB (MySQL ``TEXT``). Nothing is pickled.

Records read from storage are untrusted input. :func:`read` returns a record only when
every field has the type and range this module's writer produces (see :class:`Stored`);
otherwise it returns why not, and never raises. Reading costs time and memory in proportion
to the attrs that are already in memory, never to a number stored in them: a chunk count
larger than the number of attrs, a single value longer than :data:`CHUNK`, a non-finite or
out-of-range number and a value of the wrong type all make the record invalid.
"""

from __future__ import annotations

from collections.abc import Mapping
import json
import math
from typing import Any
from typing import TypedDict


KEY = "psms:rec"
#: Characters of record text per attr value (stored size is at most twice this, plus 2).
CHUNK = 30_000
#: Version of the record layout written by this package; records of another version are
#: invalid (ignored with a warning).
VERSION = 1
#: Limits of ``info`` (a few JSON scalars per trial) and of the number of extra vectors.
MAX_INFO_ITEMS = 32
MAX_VECTORS = 8
MAX_KEY_LENGTH = 64
MAX_INFO_STRING = 256
#: Largest magnitude of an integer in ``info`` or of a member/generation index.
MAX_INT = 2**53

# One encoder for every record: ``json.dumps`` with options builds a new one per call.
_ENCODER = json.JSONEncoder(
    separators=(",", ":"), allow_nan=False, ensure_ascii=True, check_circular=False
)

Scalar = int | float | str | bool | None


class _Optional(TypedDict, total=False):
    """The fields a record may lack (``typing.NotRequired`` needs Python 3.11)."""

    sl: int


class Stored(_Optional):
    """The fields of a record (JSON keys are kept short: a record is written per trial).

    Attributes:
        ver: :data:`VERSION`.
        a: The algorithm tag of the sampler that wrote it (its class's ``identity.tag``).
        s: The seed of the trial's draws, a non-negative integer.
        r: The run index (``0`` until the first restart), ``0 <= r <=`` trial number.
        rs: The first trial number of run ``r``, ``0 <= rs <=`` trial number.
        m: The member (particle, slot, column); ``-1`` when none (a fallback proposal).
        g: The member's iteration or the population's generation; ``-1`` when none.
        x: The position: parameter name -> coordinate in ``[0, 1]``.
        vec: Further per-dimension vectors: vector name -> parameter name -> finite value.
        info: Further JSON scalars of the strategy (finite numbers, short strings).
        sl: The trial's slot number, ``0 <= sl <=`` trial number: the number the strategy
            saw (:mod:`optuna_psms.samplers._runs`). Absent in records written before
            foreign trials took no slot; a study holding such records keeps numbering its
            trials as then (foreign trials take a slot).
    """

    ver: int
    a: str
    s: int
    r: int
    rs: int
    m: int
    g: int
    x: dict[str, float]
    vec: dict[str, dict[str, float]]
    info: dict[str, Scalar]


def make(
    algorithm: str,
    *,
    seed: int,
    run: int,
    run_start: int,
    member: int,
    generation: int,
    x: dict[str, float],
    vectors: dict[str, dict[str, float]],
    info: dict[str, Scalar],
    slot: int | None = None,
) -> Stored:
    """The record of one trial, in the current :data:`VERSION`."""
    rec: Stored = {
        "ver": VERSION,
        "a": algorithm,
        "s": seed,
        "r": run,
        "rs": run_start,
        "m": member,
        "g": generation,
        "x": x,
        "vec": vectors,
        "info": info,
    }
    if slot is not None:
        rec["sl"] = slot
    return rec


def dump(record: Mapping[str, Any]) -> dict[str, Any]:
    """The system attrs that store ``record`` (insertion order = write order)."""
    text = _ENCODER.encode(record)
    if len(text) <= CHUNK:
        return {KEY: text}
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    attrs: dict[str, Any] = {f"{KEY}:{i}": c for i, c in enumerate(chunks)}
    attrs[f"{KEY}:n"] = len(chunks)
    return attrs


def present(system_attrs: Mapping[str, Any]) -> bool:
    """Whether ``system_attrs`` hold a (possibly chunked) record."""
    return KEY in system_attrs or f"{KEY}:n" in system_attrs


class Invalid(ValueError):
    """Why a stored record cannot be used (raised and caught inside this module only)."""


def _reject_constant(name: str) -> Any:
    raise Invalid(f"the JSON holds {name}")


# ``NaN``/``Infinity`` literals are refused at parse time; ``1e999`` parses as ``inf`` and
# is refused by the range checks.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _text(system_attrs: Mapping[str, Any]) -> str | None:
    """The record's JSON text; ``None`` when absent or half-written (no chunk count yet)."""
    if KEY in system_attrs:
        text = system_attrs[KEY]
        if not isinstance(text, str):
            raise Invalid(f"{KEY} is a {type(text).__name__}, not a string")
        if len(text) > CHUNK:
            raise Invalid(f"{KEY} has {len(text)} characters (at most {CHUNK} are written)")
        return text
    n = system_attrs.get(f"{KEY}:n")
    if n is None:
        return None
    # Bounded by what is in memory already: never by the stored number itself.
    if type(n) is not int or not 1 <= n < len(system_attrs):
        raise Invalid(f"{KEY}:n is {_show(n)}, not a count of the chunks present")
    parts = []
    for i in range(n):
        part = system_attrs.get(f"{KEY}:{i}")
        if not isinstance(part, str) or len(part) > CHUNK:
            raise Invalid(f"chunk {i} of {n} is missing or not a string of <= {CHUNK} characters")
        parts.append(part)
    return "".join(parts)


def _show(value: Any) -> str:
    """A short description of a stored value for a warning."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}... ({type(value).__name__})"


def _int(rec: Mapping[str, Any], key: str, low: int, high: int | None) -> int:
    value = rec.get(key)
    if type(value) is not int:
        raise Invalid(f"field {key!r} is {_show(value)}, not an integer")
    if value < low or (high is not None and value > high):
        span = f"[{low}, inf)" if high is None else f"[{low}, {high}]"
        raise Invalid(f"field {key!r} is {_show(value)}, outside {span}")
    return value


def _number(value: Any, what: str, low: float, high: float) -> float:
    if type(value) is not float and type(value) is not int:
        raise Invalid(f"{what} is {_show(value)}, not a number")
    try:
        v = float(value)
    except OverflowError:  # an integer beyond 1e308
        v = math.inf
    if not (math.isfinite(v) and low <= v <= high):
        raise Invalid(f"{what} is {_show(value)}, outside [{low}, {high}]")
    return v


def _name(key: Any, what: str) -> str:
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH:
        raise Invalid(f"{what} name {_show(key)} is not a short string")
    return key


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"{what} is {_show(value)}, not an object")
    return value


_NUMBER_TYPES = {float, int}


def _numbers(value: Any, what: str, low: float, high: float) -> dict[str, float]:
    """``value`` as a mapping of names to finite numbers in ``[low, high]``."""
    values = _mapping(value, what)
    numbers = values.values()
    try:  # the usual case in C loops: about 0.1 us per value
        if (
            set(map(type, numbers)) <= _NUMBER_TYPES
            and all(map(math.isfinite, numbers))
            and (not numbers or (low <= min(numbers) and max(numbers) <= high))
        ):
            return values
    except OverflowError:  # an integer beyond 1e308: the loop below names it
        pass
    for name, u in values.items():
        _number(u, f"{name[:40]!r} of {what}", low, high)
    raise Invalid(f"{what} holds an invalid number")  # not reached: the loop names it


def _vectors(value: Any) -> dict[str, dict[str, float]]:
    vectors = _mapping(value, "field 'vec'")
    if len(vectors) > MAX_VECTORS:
        raise Invalid(f"field 'vec' holds {len(vectors)} vectors (at most {MAX_VECTORS})")
    for key, vec in vectors.items():
        _name(key, "vector")
        _numbers(vec, f"vector {key!r}", -math.inf, math.inf)
    return vectors


def _info(value: Any) -> dict[str, Scalar]:
    info = _mapping(value, "field 'info'")
    if len(info) > MAX_INFO_ITEMS:
        raise Invalid(f"field 'info' holds {len(info)} items (at most {MAX_INFO_ITEMS})")
    out: dict[str, Scalar] = {}
    for key, v in info.items():
        _name(key, "info")
        what = f"info {key!r}"
        if v is None or isinstance(v, bool):
            out[key] = v
        elif isinstance(v, str):
            if len(v) > MAX_INFO_STRING:
                raise Invalid(f"{what} is a string of {len(v)} characters")
            out[key] = v
        elif type(v) is int:
            if abs(v) > MAX_INT:
                raise Invalid(f"{what} is {_show(v)}, outside [-2**53, 2**53]")
            out[key] = v
        else:
            out[key] = _number(v, what, -math.inf, math.inf)
    return out


def validate(value: Any, algorithm: str, number: int) -> Stored:
    """``value`` (parsed JSON) as a record of ``algorithm`` for trial ``number``.

    Raises:
        Invalid: Naming the first field that is missing, of the wrong type or out of range.
    """
    rec = _mapping(value, "the record")
    if rec.get("ver") != VERSION or type(rec.get("ver")) is not int:
        raise Invalid(f"record version {_show(rec.get('ver'))} (this package reads {VERSION})")
    if rec.get("a") != algorithm:
        raise Invalid(f"record of another sampler ({_show(rec.get('a'))}, not {algorithm!r})")
    bound = max(number, 0)
    return make(
        algorithm,
        seed=_int(rec, "s", 0, None),
        run=_int(rec, "r", 0, bound),
        run_start=_int(rec, "rs", 0, bound),
        member=_int(rec, "m", -1, MAX_INT),
        generation=_int(rec, "g", -1, MAX_INT),
        x=_numbers(rec.get("x"), "field 'x'", 0.0, 1.0),
        vectors=_vectors(rec.get("vec")),
        info=_info(rec.get("info")),
        slot=_int(rec, "sl", 0, bound) if "sl" in rec else None,
    )


def read(system_attrs: Mapping[str, Any], algorithm: str, number: int) -> Stored | str | None:
    """The record of trial ``number`` written by a sampler of ``algorithm``.

    Returns:
        The validated record; ``None`` when the trial has none (or it is half-written); or,
        for a record that cannot be used, a one-line reason (it never raises).
    """
    try:
        text = _text(system_attrs)
        if text is None:
            return None
        try:
            value = _DECODER.decode(text)
        except (ValueError, RecursionError) as exc:  # Invalid is a ValueError too
            reason = str(exc) if isinstance(exc, Invalid) else "malformed JSON"
            raise Invalid(reason) from None
        return validate(value, algorithm, number)
    except Invalid as exc:
        return str(exc)


def load(system_attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The raw stored JSON object (unvalidated; for tests and tools), ``None`` if unreadable."""
    try:
        text = _text(system_attrs)
        value = None if text is None else json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
