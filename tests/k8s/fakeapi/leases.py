# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decoding and validating a Lease body the way kube-apiserver does.

Decode errors (wrong JSON types, a MicroTime without exactly six fractional digits) are 400
BadRequest 'Lease in version "v1" cannot be handled as a Lease: ...'; validation errors
(leaseDurationSeconds <= 0, a bad name) are 422 Invalid. Unknown fields are dropped.
"""

import datetime
import re

from . import status as st
from .gotime import GoTimeError, format_micro, parse_micro
from .objects import DNS1123_SUBDOMAIN

GROUP, VERSION, KIND = "coordination.k8s.io", "v1", "Lease"
API_VERSION = f"{GROUP}/{VERSION}"
META_KEYS = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation",
             "creationTimestamp", "deletionTimestamp", "labels", "annotations",
             "ownerReferences", "finalizers")
# field -> (Go type name, checker)
SPEC_FIELDS = {"holderIdentity": "string", "leaseDurationSeconds": "int32",
               "acquireTime": "MicroTime", "renewTime": "MicroTime", "leaseTransitions": "int32",
               "strategy": "string", "preferredHolder": "string"}
_JSON_KIND = {str: "string", bool: "bool", int: "number", float: "number", list: "array",
              dict: "object"}


def _decode_error(msg):
    return st.bad_request(f'{KIND} in version "{VERSION}" cannot be handled as a {KIND}: {msg}')


def _type_error(value, field, gotype):
    kind = _JSON_KIND.get(type(value), "value")
    shown = f"number {value}" if kind == "number" else kind
    return _decode_error(f"json: cannot unmarshal {shown} into Go struct field "
                         f"LeaseSpec.spec.{field} of type {gotype}")


def _decode_spec_field(field, gotype, value):
    if value is None:
        return None
    if gotype == "string":
        if not isinstance(value, str):
            raise _type_error(value, field, gotype)
        return value
    if gotype == "int32":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                value != int(value) or not -2**31 <= value < 2**31:
            raise _type_error(value, field, gotype)
        return int(value)
    if not isinstance(value, str):
        kind = _JSON_KIND.get(type(value), "value")
        raise _decode_error(f"json: cannot unmarshal {kind} into Go value of type string")
    if value == "":
        return None
    try:
        return format_micro(parse_micro(value))
    except GoTimeError as e:
        raise _decode_error(str(e)) from None


def decode(body):
    """A Lease dict with only known fields and normalised times; ApiError(400) otherwise."""
    if not isinstance(body, dict):
        raise _decode_error("json: cannot unmarshal array into Go value of type v1.Lease"
                            if isinstance(body, list) else "couldn't get version/kind; json "
                            "parse error")
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if api_version and api_version != API_VERSION:
        raise st.bad_request(f"the API version in the data ({api_version}) does not match the "
                             f"expected API version ({API_VERSION})")
    if kind and kind != KIND:
        raise _decode_error(f'no kind "{kind}" is registered for version "{API_VERSION}" in '
                            'scheme "pkg/api/legacyscheme/scheme.go:30"')
    meta = body.get("metadata") or {}
    if not isinstance(meta, dict):
        raise _decode_error("json: cannot unmarshal into Go struct field Lease.metadata of type "
                            "v1.ObjectMeta")
    spec_in = body.get("spec") or {}
    if not isinstance(spec_in, dict):
        raise _decode_error("json: cannot unmarshal into Go struct field Lease.spec of type "
                            "v1.LeaseSpec")
    spec = {}
    for field, gotype in SPEC_FIELDS.items():
        value = _decode_spec_field(field, gotype, spec_in.get(field))
        if value is not None:
            spec[field] = value
    lease = {"kind": KIND, "apiVersion": API_VERSION,
             "metadata": {k: meta[k] for k in META_KEYS if meta.get(k) not in (None, "")},
             "spec": spec}
    rv = lease["metadata"].get("resourceVersion")
    if rv is not None and not (isinstance(rv, str) and rv.isdigit()):
        raise st.bad_request(f"invalid resource version: {rv!r}" if not isinstance(rv, str)
                             else f'strconv.ParseUint: parsing "{rv}": invalid syntax')
    return lease


def validate(lease, name):
    """422 Invalid for what ValidateLease rejects."""
    causes = []
    meta = lease["metadata"]
    if not meta.get("name") and not meta.get("generateName"):
        causes.append(st.field_required("metadata.name", "name or generateName is required"))
    elif meta.get("name") and (len(meta["name"]) > 253
                               or not re.fullmatch(DNS1123_SUBDOMAIN, meta["name"])):
        causes.append(st.field_invalid(
            "metadata.name", meta["name"],
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            f"'example.com', regex used for validation is '{DNS1123_SUBDOMAIN}')"))
    spec = lease["spec"]
    if spec.get("leaseDurationSeconds") is not None and spec["leaseDurationSeconds"] <= 0:
        causes.append(st.field_invalid("spec.leaseDurationSeconds", spec["leaseDurationSeconds"],
                                       "must be greater than 0"))
    if spec.get("leaseTransitions") is not None and spec["leaseTransitions"] < 0:
        causes.append(st.field_invalid("spec.leaseTransitions", spec["leaseTransitions"],
                                       "must be greater than or equal to 0"))
    if causes:
        raise st.invalid(GROUP, KIND, name or meta.get("name", ""), causes)


def held_until(lease):
    """The expiry (aware datetime) of the holder's claim, True if it cannot expire, None if free."""
    spec = lease.get("spec") or {}
    if not spec.get("holderIdentity"):
        return None
    stamp = spec.get("renewTime") or spec.get("acquireTime")
    duration = spec.get("leaseDurationSeconds")
    if not stamp or duration is None:
        return True
    return parse_micro(stamp) + datetime.timedelta(seconds=duration)
