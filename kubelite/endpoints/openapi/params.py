"""The request parameters kube-apiserver documents, and which operations take which.

The sets mirror the option structs kube decodes each verb's query with (ListOptions, CreateOptions,
PatchOptions, DeleteOptions, PodLogOptions, PodExecOptions, ...), so a client reading the documents learns
exactly the names and types the real server accepts. `fieldValidation` on PATCH matters most: kubectl only
trusts server-side field validation for a kind when its PATCH operation lists it.
"""

from __future__ import annotations

from kubelite.endpoints.openapi.model import Param, ParamType


def _query(name: str, type_: ParamType, description: str) -> Param:
    return Param(name, "query", type_, description)


NAMESPACE = Param(
    "namespace", "path", "string", "object name and auth scope, such as for teams and projects", True
)


def name_param(kind: str) -> Param:
    return Param("name", "path", "string", f"name of the {kind}", True)


PRETTY = _query(
    "pretty",
    "string",
    "If 'true', the response is indented for reading. Browsers and command-line HTTP tools "
    "(curl, wget) get indented output unless they ask otherwise.",
)

# writes (CreateOptions, UpdateOptions, PatchOptions)
DRY_RUN = _query(
    "dryRun",
    "string",
    "When present, the request is validated and processed but nothing is persisted. The "
    "only valid value is All, which runs every dry-run stage; anything else is an error.",
)
FIELD_MANAGER = _query(
    "fieldManager",
    "string",
    "The name of the actor making the change, recorded in managedFields. At most 128 printable characters.",
)
FIELD_MANAGER_PATCH = _query(
    "fieldManager",
    "string",
    "The name of the actor making the change, recorded in managedFields. At most 128 printable "
    "characters. Required for apply patches (application/apply-patch+yaml), optional for JSON, "
    "merge and strategic merge patches.",
)
FIELD_VALIDATION = _query(
    "fieldValidation",
    "string",
    "How to treat unknown or duplicate fields in the request body: Ignore drops "
    "them silently; Warn (the default) drops them and reports each in a Warning header; Strict rejects the "
    "request with a BadRequest listing them all.",
)
FORCE = _query(
    "force",
    "boolean",
    "Apply patches only: take ownership of fields that other managers own instead of "
    "failing with a conflict. Must be unset for other patch types.",
)

# reads of collections (ListOptions)
ALLOW_WATCH_BOOKMARKS = _query(
    "allowWatchBookmarks",
    "boolean",
    "Ask for BOOKMARK events on a watch. The server may send them at any "
    "interval, or never; ignored when not watching.",
)
CONTINUE = _query(
    "continue",
    "string",
    "The token from a previous paged list's metadata.continue, to fetch the next page "
    "with the same query. An expired token answers 410 Gone. Not supported with watch.",
)
FIELD_SELECTOR = _query(
    "fieldSelector", "string", "Only return objects whose fields match this selector. Defaults to everything."
)
LABEL_SELECTOR = _query(
    "labelSelector", "string", "Only return objects whose labels match this selector. Defaults to everything."
)
LIMIT = _query(
    "limit",
    "integer",
    "The most items to return in one page. When more exist, metadata.continue is set to "
    "fetch the rest; all pages together form one consistent snapshot. Not supported with watch.",
)
RESOURCE_VERSION = _query(
    "resourceVersion",
    "string",
    "Which resource versions the request may be served from; see the API "
    "concepts documentation on resource versions. Defaults to unset.",
)
RESOURCE_VERSION_MATCH = _query(
    "resourceVersionMatch",
    "string",
    "How resourceVersion applies to a list: NotOlderThan or Exact. Should "
    "be set whenever resourceVersion is. Defaults to unset.",
)
SEND_INITIAL_EVENTS = _query(
    "sendInitialEvents",
    "boolean",
    "With watch=true, start the stream with synthetic ADDED events for the "
    "current objects, then a BOOKMARK annotated k8s.io/initial-events-end. Requires "
    "resourceVersionMatch=NotOlderThan.",
)
SHARD_SELECTOR = _query(
    "shardSelector",
    "string",
    "Only return objects in the given hash ranges, written as shardRange() calls "
    "over object.metadata.uid joined with ||.",
)
TIMEOUT_SECONDS = _query(
    "timeoutSeconds", "integer", "End the list or watch call after this many seconds, busy or idle."
)
WATCH = _query(
    "watch",
    "boolean",
    "Stream added, modified and deleted notifications for the described objects instead "
    "of listing them. Pair with resourceVersion.",
)

# deletes (DeleteOptions)
GRACE_PERIOD_SECONDS = _query(
    "gracePeriodSeconds",
    "integer",
    "Seconds the object has to terminate gracefully before it is removed. 0 "
    "deletes at once; unset uses the kind's default.",
)
IGNORE_STORE_READ_ERROR = _query(
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "boolean",
    "Delete an object that cannot be read back "
    "from storage (it fails to decrypt or decode), skipping finalizers and preconditions. Unsafe; off by "
    "default.",
)
ORPHAN_DEPENDENTS = _query(
    "orphanDependents",
    "boolean",
    "Deprecated: use propagationPolicy. Whether to add (true) or remove (false) "
    "the orphan finalizer. Cannot be set together with propagationPolicy.",
)
PROPAGATION_POLICY = _query(
    "propagationPolicy",
    "string",
    "How garbage collection treats dependents: Orphan leaves them, Background "
    "deletes them after the owner, Foreground deletes them before it. Cannot be set together with "
    "orphanDependents.",
)

LIST = (
    ALLOW_WATCH_BOOKMARKS,
    CONTINUE,
    FIELD_SELECTOR,
    LABEL_SELECTOR,
    LIMIT,
    RESOURCE_VERSION,
    RESOURCE_VERSION_MATCH,
    SEND_INITIAL_EVENTS,
    SHARD_SELECTOR,
    TIMEOUT_SECONDS,
    WATCH,
)
CREATE = (DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION)
UPDATE = (DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION)
PATCH = (DRY_RUN, FIELD_MANAGER_PATCH, FIELD_VALIDATION, FORCE)
DELETE = (DRY_RUN, GRACE_PERIOD_SECONDS, IGNORE_STORE_READ_ERROR, ORPHAN_DEPENDENTS, PROPAGATION_POLICY)
#: a collection delete selects like a list, but never watches
DELETE_COLLECTION = DELETE + tuple(p for p in LIST if p not in (ALLOW_WATCH_BOOKMARKS, WATCH))

# pods/log (PodLogOptions)
LOG = (
    _query("container", "string", "The container to stream logs of. May be omitted when the pod has one."),
    _query("follow", "boolean", "Keep the stream open and send new log lines as they are written."),
    _query(
        "insecureSkipTLSVerifyBackend",
        "boolean",
        "Do not verify the kubelet's serving certificate when fetching the logs.",
    ),
    _query("limitBytes", "integer", "Stop after this many bytes of log output."),
    _query("previous", "boolean", "Return the logs of the previous, terminated run of the container."),
    _query("sinceSeconds", "integer", "Only return lines newer than this many seconds."),
    _query("stream", "string", "Which stream to return: All (the default), Stdout or Stderr."),
    _query("tailLines", "integer", "Only return this many lines from the end of the log."),
    _query("timestamps", "boolean", "Prefix every line with its RFC3339 timestamp."),
)

_CONTAINER = _query(
    "container", "string", "The container to connect to. May be omitted when the pod has one."
)
_STDIO = (
    _query("stderr", "boolean", "Stream the container's standard error."),
    _query("stdin", "boolean", "Stream standard input to the container."),
    _query("stdout", "boolean", "Stream the container's standard output."),
    _query("tty", "boolean", "Allocate a terminal for the session."),
)
EXEC = (_query("command", "string", "The command to run, one argument per repetition."), _CONTAINER, *_STDIO)
ATTACH = (_CONTAINER, *_STDIO)
PORTFORWARD = (_query("ports", "integer", "The pod ports to forward to."),)
PROXY = (_query("path", "string", "The path to proxy the request to."),)
PROXY_PATH = Param("path", "path", "string", "path to the resource", True)
