"""Storage errors as API Status errors: the one place they are translated (kube's `storage/errors`).

The Store calls storage, catches `StorageError` once per verb and raises what the matching `interpret_*`
function returns, `from` the storage error. Each function knows what its verb's storage errors mean to a
client, with kube's texts: a key that exists is AlreadyExists on create but a Conflict on update; a
precondition that fails in storage is a Conflict carrying storage's own words, as kube's
`StorageError: invalid object, ...`; any other storage error (a corrupt row, a closed store) is an
InternalError.
"""

from __future__ import annotations

from kubelite.apimachinery import errors
from kubelite.apimachinery.errors import GroupResource, StatusError
from kubelite.storage import continue_token
from kubelite.storage import errors as storage_errors

#: kube's storage.ErrCodeInvalidObj: a precondition that did not hold
_CODE_INVALID_OBJ = 4


def interpret_get_error(exc: Exception, qualified: GroupResource, name: str) -> Exception:
    if isinstance(exc, storage_errors.KeyNotFound):
        return errors.not_found(qualified, name)
    return _common(exc)


def interpret_create_error(exc: Exception, qualified: GroupResource, name: str) -> Exception:
    if isinstance(exc, storage_errors.KeyExists):
        return errors.already_exists(qualified, name)
    return _common(exc)


def interpret_update_error(exc: Exception, qualified: GroupResource, name: str) -> Exception:
    if isinstance(exc, storage_errors.Conflict):
        return errors.conflict(qualified, name, invalid_object_text(exc))
    if isinstance(exc, storage_errors.KeyExists):
        return errors.already_exists(qualified, name)
    if isinstance(exc, storage_errors.KeyNotFound):
        return errors.not_found(qualified, name)
    return _common(exc)


def interpret_delete_error(exc: Exception, qualified: GroupResource, name: str) -> Exception:
    if isinstance(exc, storage_errors.KeyNotFound):
        return errors.not_found(qualified, name)
    if isinstance(exc, storage_errors.Conflict):
        return errors.conflict(qualified, name, invalid_object_text(exc))
    return _common(exc)


def interpret_list_error(
    exc: Exception, *, continue_from: str | None = None, paginated: bool = False
) -> Exception:
    """`continue_from`: the request's continue token, when it had one; `paginated`: it set a limit."""
    if isinstance(exc, storage_errors.TooOldResourceVersion):
        if continue_from:
            # kube hands out a token that goes on from the same key at the newest revision
            _, start = continue_token.decode(continue_from)
            expired = _expired_continue()
            expired.list_meta = {"continue": continue_token.encode(-1, start)}
            return expired
        if not paginated:  # kube: the storage's answer for an unpaginated list at a compacted revision
            return errors.resource_expired("The resourceVersion for the provided list is too old.")
        return errors.too_old_resource_version(exc.requested, exc.oldest)
    return _watch_or_list(exc)


def interpret_watch_error(exc: Exception) -> Exception:
    return _watch_or_list(exc)


def invalid_object_text(exc: storage_errors.StorageError) -> str:
    """kube's StorageError text for a failed precondition (etcd3's NewInvalidObjError), which kube's
    Conflict then carries: the key, a resourceVersion that is always 0 there, and storage's message."""
    return (
        f"StorageError: invalid object, Code: {_CODE_INVALID_OBJ}, Key: {exc.key}, ResourceVersion: 0, "
        f"AdditionalErrorMsg: {exc}"
    )


def _watch_or_list(exc: Exception) -> Exception:
    if isinstance(exc, storage_errors.TooOldResourceVersion):
        return errors.too_old_resource_version(exc.requested, exc.oldest)
    if isinstance(exc, storage_errors.FutureResourceVersion):
        return _too_large_resource_version(exc)
    return _common(exc)


def _common(exc: Exception) -> Exception:
    """What a storage error means to any verb that does not know it better: the server failed."""
    return errors.internal_error(str(exc))


def _expired_continue() -> StatusError:
    return errors.resource_expired(
        "The provided continue parameter is too old to display a consistent list result. You can start a new "
        "list without the continue parameter, or use the continue token in this response to retrieve the "
        "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
        "that were created, modified, or deleted between the time the first chunk was returned and now may show "
        "up in the list."
    )


def _too_large_resource_version(exc: storage_errors.FutureResourceVersion) -> StatusError:
    err = errors.timeout(f"Too large resource version: {exc.requested}, current: {exc.current}")
    err.details = {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        "retryAfterSeconds": 1,
    }
    return err
