# SPDX-License-Identifier: LGPL-2.1-or-later
"""metav1.Status objects as kube-apiserver writes them (k8s.io/apimachinery/pkg/api/errors).

Every builder returns an ApiError carrying the HTTP code and the Status body. Messages and
details follow the real constructors: a GroupResource prints as "pods" or
"leases.coordination.k8s.io", details.kind is the *resource* (plural) except for Invalid,
whose details.kind is the Kind.
"""

import json


class ApiError(Exception):
    def __init__(self, status, headers=None):
        super().__init__(status.get("message", ""))
        self.status = status
        self.code = status["code"]
        self.headers = headers or {}


def group_resource(group, resource):
    return f"{resource}.{group}" if group else resource


def _status(code, reason, message, details=None):
    st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
          "message": message}
    if reason:
        st["reason"] = reason
    if details is not None:
        st["details"] = details
    st["code"] = code
    return st


def _details(name, group, kind, **extra):
    d = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    if kind:
        d["kind"] = kind
    d.update(extra)
    return d


def success(code=200, details=None):
    st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details is not None:
        st["details"] = details
    st["code"] = code
    return st


def not_found(group, resource, name):
    gr = group_resource(group, resource)
    msg = f'{gr} "{name}" not found' if name else f"{gr} not found"
    return ApiError(_status(404, "NotFound", msg, _details(name, group, resource)))


def already_exists(group, resource, name):
    gr = group_resource(group, resource)
    return ApiError(_status(409, "AlreadyExists", f'{gr} "{name}" already exists',
                            _details(name, group, resource)))


OPTIMISTIC_LOCK = ("the object has been modified; please apply your changes to the latest "
                   "version and try again")


def conflict(group, resource, name, why=OPTIMISTIC_LOCK):
    gr = group_resource(group, resource)
    return ApiError(_status(409, "Conflict", f'Operation cannot be fulfilled on {gr} "{name}": {why}',
                            _details(name, group, resource)))


def forbidden(group, resource, name, why):
    gr = group_resource(group, resource)
    msg = f'{gr} "{name}" is forbidden: {why}' if name else f"{gr} is forbidden: {why}"
    return ApiError(_status(403, "Forbidden", msg, _details(name, group, resource)))


def namespace_terminating(group, resource, name, namespace):
    """The NamespaceLifecycle admission plugin's refusal of a create in a namespace being
    deleted (plugin/pkg/admission/namespace/lifecycle): Forbidden, with a NamespaceTerminating
    cause on metadata.namespace."""
    err = forbidden(group, resource, name, f"unable to create new content in namespace "
                                          f"{namespace} because it is being terminated")
    err.status["details"]["causes"] = [{
        "reason": "NamespaceTerminating",
        "message": f"namespace {namespace} is being terminated",
        "field": "metadata.namespace"}]
    return err


def unauthorized():
    return ApiError(_status(401, "Unauthorized", "Unauthorized"))


def bad_request(message):
    return ApiError(_status(400, "BadRequest", message))


def field_invalid(path, value, detail):
    """A field.Error of type Invalid: (cause dict, error string)."""
    shown = go_value(value)
    return {"reason": "FieldValueInvalid", "message": f"Invalid value: {shown}: {detail}",
            "field": path}


def field_required(path, detail):
    return {"reason": "FieldValueRequired", "message": f"Required value: {detail}", "field": path}


def invalid(group, kind, name, causes):
    """errors.NewInvalid: 422 with the field errors as causes."""
    gk = f"{kind}.{group}" if group else kind
    errs = [f"{c['field']}: {c['message']}" for c in causes]
    agg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
    msg = f'{gk} "{name}" is invalid: {agg}'
    return ApiError(_status(422, "Invalid", msg, _details(name, group, kind, causes=causes)))


def unprocessable_patch(cause_message):
    """A JSON patch that does not apply (patch.go: NewGenericServerResponse(422, ...))."""
    return ApiError(_status(422, "Invalid",
                            "the server rejected our request due to an error in our request",
                            {"causes": [{"reason": "UnexpectedServerResponse",
                                         "message": cause_message}]}))


PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json",
               "application/strategic-merge-patch+json", "application/apply-patch+yaml"]
BODY_TYPES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]


def unsupported_media_type(accepted):
    return ApiError(_status(415, "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media "
                            "types include: " + ", ".join(accepted)))


def not_acceptable():
    return ApiError(_status(406, "NotAcceptable",
                            "only the following media types are accepted: "
                            + ", ".join(BODY_TYPES)))


def too_many_requests(message, retry_after=0, causes=None):
    details = {}
    if causes:
        details["causes"] = causes
    if retry_after:
        details["retryAfterSeconds"] = retry_after
    headers = {"Retry-After": str(retry_after)} if retry_after else {}
    return ApiError(_status(429, "TooManyRequests", message, details), headers)


def internal_error(message):
    return ApiError(_status(500, "InternalError", f"Internal error occurred: {message}",
                            {"causes": [{"message": message}]}))


def plain_failure(code, message, reason=""):
    """A Status that a REST storage returned as its result (no details), e.g. eviction's 500."""
    return ApiError(_status(code, reason, message))


def method_not_allowed():
    return ApiError(_status(405, "MethodNotAllowed",
                            "the server does not allow this method on the requested resource",
                            {}))


def resource_not_found():
    return ApiError(_status(404, "NotFound", "the server could not find the requested resource",
                            {}))


def too_large(limit):
    return ApiError(_status(413, "RequestEntityTooLarge",
                            f"Request entity too large: limit is {limit}"))


def service_unavailable(message="the server is currently unable to handle the request",
                        retry_after=0):
    details = {"retryAfterSeconds": retry_after} if retry_after else {}
    headers = {"Retry-After": str(retry_after)} if retry_after else {}
    return ApiError(_status(503, "ServiceUnavailable", message, details), headers)


def error_for_code(code, message=None, retry_after=0):
    """A generic Status for an injected failure with the reason the real server uses for `code`."""
    reasons = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
               409: "Conflict", 410: "Expired", 422: "Invalid", 429: "TooManyRequests",
               500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}
    st = _status(code, reasons.get(code, ""), message or f"injected failure {code}",
                 {"retryAfterSeconds": retry_after} if retry_after else None)
    return ApiError(st, {"Retry-After": str(retry_after)} if retry_after else {})


class GoRaw(str):
    """A value already formatted as Go prints it (e.g. "0x0" for a uint64 zero)."""


def go_value(value):
    """Formats a value the way field.Invalid prints it (%#v-like for the common types)."""
    if isinstance(value, GoRaw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if value is None:
        return "null"
    return str(value)
