# SPDX-License-Identifier: LGPL-2.1-or-later
"""The writing verbs: create and update (leases), patch, delete, and the eviction subresource."""

import copy
import json

from . import leases as lease_codec
from . import status as st
from .api import json_response, not_implemented
from .cluster import check_preconditions
from .patch import (PatchError, PatchFormatError, json_patch, merge_patch,
                    strategic_merge_patch)
from .objects import random_suffix

PATCHERS = {"application/json-patch+json": json_patch,
            "application/merge-patch+json": merge_patch,
            "application/strategic-merge-patch+json": strategic_merge_patch}
BODY_MEDIA = ("", "application/json", "*/*")


def media_type(req):
    return (req.headers.get("Content-Type") or "").split(";")[0].strip().lower()


def _summary(body):
    text = body.decode(errors="replace")
    return text if len(text) <= 30 else text[:30] + " ..."


def read_json(req, kind):
    """The body as JSON for a create/update; 415 and 400 as the real decoder answers."""
    if media_type(req) not in BODY_MEDIA:
        raise st.unsupported_media_type(st.BODY_TYPES)
    try:
        return json.loads(req.body or b"null")
    except ValueError as e:
        raise st.bad_request(f"the object provided is unrecognized (must be of type {kind}): "
                             f"couldn't get version/kind; json parse error: {e} "
                             f"({_summary(req.body)})") from None


def _check_namespace(obj, namespace):
    ns = obj["metadata"].get("namespace")
    if ns and ns != namespace:
        raise st.bad_request("the namespace of the provided object does not match the "
                             "namespace sent on the request")
    obj["metadata"]["namespace"] = namespace


class Writes:
    def __init__(self, api):
        self.api = api
        self.cluster = api.cluster

    # --- leases -------------------------------------------------------------------------------

    def create(self, req, resource):
        if req.subresource == "eviction":
            return self.evict(req, resource)
        lease = lease_codec.decode(read_json(req, resource.kind))
        _check_namespace(lease, req.namespace)
        meta = lease["metadata"]
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "generation"):
            meta.pop(key, None)
        if meta.get("resourceVersion"):
            raise st.plain_failure(500, "resourceVersion should not be set on objects to be created")
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + random_suffix()
        lease_codec.validate(lease, meta.get("name", ""))
        with self.cluster.lock:
            if req.namespace not in self.api.namespaces:
                raise st.not_found("", "namespaces", req.namespace)
            if self.cluster.get("leases", req.namespace, meta["name"]) is not None:
                raise st.already_exists(resource.group, resource.name, meta["name"])
            return json_response(201, copy.deepcopy(self.cluster.create("leases", lease)))

    def update(self, req, resource):
        lease = lease_codec.decode(read_json(req, resource.kind))
        meta = lease["metadata"]
        if meta.get("name") != req.name:
            raise st.bad_request(f"the name of the object ({meta.get('name', '')}) does not match "
                                 f"the name on the URL ({req.name})")
        if meta.get("namespace") and meta["namespace"] != req.namespace:
            raise st.bad_request(f"the namespace of the object ({meta['namespace']}) does not "
                                 f"match the namespace on the URL ({req.namespace})")
        meta["namespace"] = req.namespace
        with self.cluster.lock:
            current = self.cluster.get("leases", req.namespace, req.name)
            if current is None:
                return self._create_on_update(req, resource, lease)
            if meta.get("uid") and meta["uid"] != current["metadata"]["uid"]:
                raise st.conflict(resource.group, resource.name, req.name, _storage_uid_error(
                    req, meta["uid"], current["metadata"]["uid"]))
            if not meta.get("resourceVersion"):
                raise st.invalid(resource.group, resource.name, req.name, [st.field_invalid(
                    "metadata.resourceVersion", st.GoRaw("0x0"), "must be specified for an update")])
            if meta["resourceVersion"] != current["metadata"]["resourceVersion"]:
                raise st.conflict(resource.group, resource.name, req.name)
            lease_codec.validate(lease, req.name)
            for key in ("uid", "creationTimestamp"):
                meta[key] = current["metadata"][key]
            return json_response(200, copy.deepcopy(self.cluster.replace("leases", lease)))

    def _create_on_update(self, req, resource, lease):
        """Leases allow create-on-update: PUT to a missing name creates it (201)."""
        meta = lease["metadata"]
        meta.pop("resourceVersion", None)
        meta.pop("uid", None)
        lease_codec.validate(lease, req.name)
        if req.namespace not in self.api.namespaces:
            raise st.not_found("", "namespaces", req.namespace)
        return json_response(201, copy.deepcopy(self.cluster.create("leases", lease)))

    # --- patch ------------------------------------------------------------------------------

    def patch(self, req, resource):
        ctype = media_type(req)
        if ctype == "application/apply-patch+yaml":
            raise not_implemented("server-side apply")
        if ctype not in PATCHERS:
            raise st.unsupported_media_type(st.PATCH_TYPES)
        try:
            body = json.loads(req.body or b"")
        except ValueError as e:
            raise st.bad_request(f"error decoding patch: {e}") from None
        with self.cluster.lock:
            current = self.cluster.get(resource.name, req.namespace, req.name)
            if current is None:
                raise st.not_found(resource.group, resource.name, req.name)
            try:
                patched = PATCHERS[ctype](copy.deepcopy(current), body)
            except PatchFormatError as e:
                raise st.bad_request(str(e)) from None
            except PatchError as e:
                raise st.unprocessable_patch(str(e)) from None
            updated = self._patched_object(resource, req, current, patched)
            return json_response(200, copy.deepcopy(self.cluster.replace(resource.name, updated)))

    def _patched_object(self, resource, req, current, patched):
        if not isinstance(patched, dict) or not isinstance(patched.get("metadata"), dict):
            raise st.bad_request("the patched object is not an object")
        meta, old = patched["metadata"], current["metadata"]
        if meta.get("name") != req.name:
            raise st.bad_request(f"the name of the object ({meta.get('name', '')}) does not match "
                                 f"the name on the URL ({req.name})")
        rv = meta.get("resourceVersion") or old["resourceVersion"]
        if rv != old["resourceVersion"]:
            raise st.conflict(resource.group, resource.name, req.name)
        for key in ("uid", "creationTimestamp", "namespace", "deletionTimestamp",
                    "deletionGracePeriodSeconds"):
            if key in old:
                meta[key] = old[key]
            else:
                meta.pop(key, None)
        patched["kind"], patched["apiVersion"] = resource.kind, resource.api_version
        if resource.name in ("nodes", "pods"):
            patched["status"] = copy.deepcopy(current.get("status", {}))  # status is a subresource
        if resource.name == "pods" and patched.get("spec") != current.get("spec"):
            raise st.invalid("", "Pod", req.name, [{
                "reason": "FieldValueForbidden", "field": "spec",
                "message": "Forbidden: pod updates may not change fields other than "
                           "`spec.containers[*].image`, `spec.initContainers[*].image`, "
                           "`spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to "
                           "existing tolerations) or `spec.terminationGracePeriodSeconds`"}])
        if resource.name == "nodes":
            _validate_node(patched, req.name)
            if patched.get("spec", {}).get("unschedulable") is False:
                del patched["spec"]["unschedulable"]  # omitempty
        if resource.name == "leases":
            patched = _revalidate_lease(patched, req.name)
        return patched

    # --- delete and evict ---------------------------------------------------------------------

    def delete(self, req, resource):
        options = self._delete_options(req)
        grace = options.get("gracePeriodSeconds")
        with self.cluster.lock:
            if resource.name == "pods":
                pod = self.cluster.delete_pod(req.namespace, req.name, grace,
                                              options.get("preconditions"))
                return json_response(200, copy.deepcopy(pod))
            obj = self.cluster.get(resource.name, req.namespace, req.name)
            if obj is None:
                raise st.not_found(resource.group, resource.name, req.name)
            check_preconditions(resource.group, resource.name, req.name, obj,
                                options.get("preconditions"))
            self.cluster.remove(resource.name, req.namespace, req.name)
            return json_response(200, st.success(200, {
                "name": req.name, "group": resource.group, "kind": resource.name,
                "uid": obj["metadata"]["uid"]}))

    def _delete_options(self, req):
        if req.body:
            try:
                options = json.loads(req.body)
            except ValueError as e:
                raise st.bad_request(f"couldn't get version/kind; json parse error: {e}") from None
            if not isinstance(options, dict):
                raise st.bad_request("json: cannot unmarshal into Go value of type "
                                     "v1.DeleteOptions")
        else:
            options = {}
            if "gracePeriodSeconds" in req.query:
                try:
                    options["gracePeriodSeconds"] = int(req.query["gracePeriodSeconds"])
                except ValueError:
                    raise st.bad_request(f'strconv.ParseInt: parsing '
                                         f'"{req.query["gracePeriodSeconds"]}": invalid syntax') from None
        grace = options.get("gracePeriodSeconds")
        if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
            raise st.bad_request("json: cannot unmarshal into Go struct field "
                                 "DeleteOptions.gracePeriodSeconds of type int64")
        return options

    def evict(self, req, resource):
        body = read_json(req, "Eviction")
        if not isinstance(body, dict):
            raise st.bad_request("json: cannot unmarshal into Go value of type v1.Eviction")
        api_version = body.get("apiVersion")
        if api_version and api_version not in ("policy/v1", "policy/v1beta1"):
            raise st.bad_request(f"the API version in the data ({api_version}) does not match "
                                 "the expected API version (policy/v1)")
        meta = body.get("metadata") or {}
        if meta.get("name") != req.name:
            raise st.bad_request("name in URL does not match name in Eviction object")
        if meta.get("namespace") and meta["namespace"] != req.namespace:
            raise st.bad_request("the namespace of the provided object does not match the "
                                 "namespace sent on the request")
        options = body.get("deleteOptions") or {}
        with self.cluster.lock:
            self.cluster.evict(req.namespace, req.name, options.get("gracePeriodSeconds"),
                               options.get("preconditions"))
        return json_response(201, st.success(201))


def _storage_uid_error(req, want, have):
    return (f"StorageError: invalid object, Code: 4, Key: /registry/leases/{req.namespace}/"
            f"{req.name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
            f"precondition: {want}, UID in object meta: {have}")


def _validate_node(node, name):
    value = node.get("spec", {}).get("unschedulable")
    if value is not None and not isinstance(value, bool):
        raise _patch_decode_error(node, "json: cannot unmarshal "
                                  f"{type(value).__name__} into Go struct field "
                                  "NodeSpec.spec.unschedulable of type bool")


def _patch_decode_error(obj, message):
    """patch.go: a patched object that does not decode is 422 on the field "patch"."""
    return st.invalid("", "", "", [st.field_invalid(
        "patch", json.dumps(obj, separators=(",", ":")), message)])


def _revalidate_lease(patched, name):
    try:
        lease = lease_codec.decode(patched)
    except st.ApiError as e:
        message = e.status["message"].split(": ", 1)[-1]
        raise _patch_decode_error(patched, message) from None
    lease["metadata"] = patched["metadata"]
    lease_codec.validate(lease, name)
    return lease
