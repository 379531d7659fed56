"""The error classes of ``ds.errors``, mirroring TF1's ``tf.errors``.

Every class carries a gRPC status code (``.code``), a message, and the name of the
node at fault when there is one (``.node_name``).  The gRPC session uses ``code`` to
re-raise a remote error as the same class on the client, so the mapping between codes
and classes lives here, in one table.
"""

from __future__ import annotations

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "error_class_for_code", "error_code_from_exception_type",
    "exception_type_from_error_code",
]

# gRPC status codes (grpc.StatusCode values), spelled out so that importing
# devsession never imports grpc.
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """Base class of every error a session raises while building or running a graph.

    ``node_name`` is the graph node at fault, or None when no single node is.  TF's own
    signature, ``(node_def, op, message)``, is taken too (a str third argument): what TF1
    code writes to raise one itself, ``tf.errors.OutOfRangeError(None, None, "done")``.
    """

    code = UNKNOWN

    def __init__(self, message: str, node_name: str | None = None, op=None):
        node_def = None
        if isinstance(op, str) and not isinstance(message, str):
            node_def, op, message = message, node_name, op
            node_name = getattr(op, "name", None) or getattr(node_def, "name", None)
        self._node_def = node_def
        super().__init__(message)
        self.message = message
        self.node_name = node_name
        self.op = op

    @property
    def error_code(self) -> int:
        """TF's name for ``code``."""
        return self.code

    @property
    def node_def(self):
        """The NodeDef of the node at fault (its op's), or None, as TF's."""
        node_def = getattr(self, "_node_def", None)
        if node_def is not None or self.op is None:
            return node_def
        return getattr(self.op, "node_def", None)

    def __str__(self) -> str:
        if self.node_name and f"'{self.node_name}'" not in self.message:
            return f"{self.message} (node '{self.node_name}')"
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.node_name))


def _subclass(name: str, code: int, doc: str) -> type[OpError]:
    return type(name, (OpError,), {"code": code, "__doc__": doc, "__module__": __name__})


CancelledError = _subclass("CancelledError", CANCELLED, "The step or call was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An error of no better class.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op or a call got an argument it cannot use.")
DeadlineExceededError = _subclass(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline passed before the work finished.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "Something asked for does not exist.")
AlreadyExistsError = _subclass(
    "AlreadyExistsError", ALREADY_EXISTS, "Something to be created exists already.")
PermissionDeniedError = _subclass(
    "PermissionDeniedError", PERMISSION_DENIED, "The caller may not do this.")
UnauthenticatedError = _subclass(
    "UnauthenticatedError", UNAUTHENTICATED, "The caller has no valid credentials.")
ResourceExhaustedError = _subclass(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Memory or another resource ran out.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to do this (e.g. an uninitialized variable).")
AbortedError = _subclass("AbortedError", ABORTED, "The operation was aborted; retrying may work.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "An index or input ran past its end.")
UnimplementedError = _subclass(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented or supported.")
InternalError = _subclass("InternalError", INTERNAL, "An invariant of the system broke.")
UnavailableError = _subclass(
    "UnavailableError", UNAVAILABLE, "A service or device cannot be reached now.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_BY_CODE = {cls.code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
    NotFoundError, AlreadyExistsError, PermissionDeniedError, UnauthenticatedError,
    ResourceExhaustedError, FailedPreconditionError, AbortedError, OutOfRangeError,
    UnimplementedError, InternalError, UnavailableError, DataLossError)}


def error_class_for_code(code: int) -> type[OpError]:
    """The ``OpError`` subclass for a gRPC status code (``UnknownError`` if none fits)."""
    return _BY_CODE.get(int(code), UnknownError)


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """TF1's ``tf.errors.exception_type_from_error_code``: the class for a status code;
    KeyError for OK (0) or a code no class has, as TF's."""
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls) -> int:
    """TF1's ``tf.errors.error_code_from_exception_type``: the status code of an
    ``OpError`` subclass.  For any other class TF warns "Unknown class exception" and
    returns an ``UnknownError`` instance (not a code); so does this, so code that compares
    the result with the codes behaves as under TF."""
    code = getattr(cls, "code", None)
    if _BY_CODE.get(code) is cls:
        return code
    import warnings

    warnings.warn("Unknown class exception")
    return UnknownError("Unknown class exception")
