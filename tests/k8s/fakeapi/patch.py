# SPDX-License-Identifier: LGPL-2.1-or-later
"""The three PATCH dialects of kube-apiserver on plain JSON values.

merge_patch: RFC 7386 (null deletes a key, anything but an object replaces).
strategic_merge_patch: RFC 7386 for maps, plus the list handling the built-in types declare:
  lists of objects with a merge key (containers by name, conditions by type, ...) are merged by
  key and `{"$patch": "delete", <key>: ...}` removes one; finalizers merge as a set;
  `{"$patch": "replace"}` in a map replaces it; $setElementOrder/ and $retainKeys are ignored;
  $deleteFromPrimitiveList/<field> removes values. Other lists are replaced.
json_patch: RFC 6902 (add, remove, replace, move, copy, test).
"""

import copy


class PatchError(Exception):
    """The patch is well formed but does not apply (kube-apiserver answers 422)."""


class PatchFormatError(Exception):
    """The patch is not a patch (kube-apiserver answers 400)."""


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name",
              "conditions": "type", "ownerReferences": "uid", "env": "name", "volumes": "name",
              "volumeMounts": "mountPath", "imagePullSecrets": "name", "addresses": "type",
              "containerStatuses": "name"}
SET_LISTS = {"finalizers"}


def _merge_keyed_list(target, patch, key):
    result = [copy.deepcopy(x) for x in target] if isinstance(target, list) else []
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            raise PatchFormatError(f"map: {item} does not contain declared merge key: {key}")
        idx = next((i for i, t in enumerate(result)
                    if isinstance(t, dict) and t.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                del result[idx]
            continue
        if idx is None:
            result.append(strategic_merge_patch({}, item))
        else:
            result[idx] = strategic_merge_patch(result[idx], item)
    return result


def _merge_value(key, current, value):
    if value is None:
        return None
    if isinstance(value, list) and key in MERGE_KEYS:
        return _merge_keyed_list(current, value, MERGE_KEYS[key])
    if isinstance(value, list) and key in SET_LISTS:
        merged = list(current) if isinstance(current, list) else []
        return merged + [v for v in value if v not in merged]
    return strategic_merge_patch(current, value)


def strategic_merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$setElementOrder/") or key in ("$retainKeys", "$patch"):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            field = key.split("/", 1)[1]
            if isinstance(result.get(field), list):
                result[field] = [v for v in result[field] if v not in value]
            continue
        merged = _merge_value(key, result.get(key), value)
        if merged is None:
            result.pop(key, None)
        else:
            result[key] = merged
    return result


# --- RFC 6902 -----------------------------------------------------------------------------

def json_equal(a, b):
    """Equality of JSON values that does not confuse true with 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _pointer(path):
    if not isinstance(path, str):
        raise PatchError("path must be a string")
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"JSON pointer must be empty or start with a \"/\": {path}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _index(container, token, path, allow_end=False):
    if allow_end and token == "-":
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"Unable to access invalid index: {token}: invalid index referenced")
    idx = int(token)
    limit = len(container) + (1 if allow_end else 0)
    if idx >= limit:
        raise PatchError(f"Unable to access invalid index: {idx}: invalid index referenced")
    return idx


def _parent(doc, tokens, path, op):
    cur = doc
    for tok in tokens[:-1]:
        if isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        elif isinstance(cur, list):
            cur = cur[_index(cur, tok, path)]
        else:
            raise PatchError(f"{op} operation does not apply: doc is missing path: \"{path}\": "
                             "missing value")
    return cur


def _get(doc, path, op):
    tokens = _pointer(path)
    if not tokens:
        return doc
    parent = _parent(doc, tokens, path, op)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError(f"{op} operation does not apply: doc is missing key: {path}: "
                             "missing value")
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(parent, last, path)]
    raise PatchError(f"{op} operation does not apply: doc is missing path: {path}: missing value")


def _add(doc, path, value):
    tokens = _pointer(path)
    if not tokens:
        return copy.deepcopy(value)
    parent = _parent(doc, tokens, path, "add")
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = copy.deepcopy(value)
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, path, allow_end=True), copy.deepcopy(value))
    else:
        raise PatchError(f"add operation does not apply: doc is missing path: \"{path}\": "
                         "missing value")
    return doc


def _remove(doc, path, op="remove"):
    tokens = _pointer(path)
    if not tokens:
        raise PatchError("unable to remove the whole document")
    parent = _parent(doc, tokens, path, op)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError(f"Unable to remove nonexistent key: {last}: missing value")
        return parent.pop(last)
    if isinstance(parent, list):
        return parent.pop(_index(parent, last, path))
    raise PatchError(f"{op} operation does not apply: doc is missing path: \"{path}\": "
                     "missing value")


def _apply_op(doc, op):
    kind, path = op.get("op"), op.get("path")
    if kind == "add":
        return _add(doc, path, _value(op))
    if kind == "remove":
        _remove(doc, path)
        return doc
    if kind == "replace":
        _get(doc, path, "replace")
        if _pointer(path):
            _remove(doc, path, "replace")
        return _add(doc, path, _value(op))
    if kind in ("move", "copy"):
        source = op.get("from")
        value = copy.deepcopy(_get(doc, source, kind))
        if kind == "move":
            if path.startswith(source + "/"):
                raise PatchError("move operation does not apply: from is a parent of path")
            _remove(doc, source, "move")
        return _add(doc, path, value)
    if kind == "test":
        if not json_equal(_get(doc, path, "test"), _value(op)):
            raise PatchError(f"testing value {path} failed: test failed")
        return doc
    raise PatchError(f"Unexpected kind: {kind}")


def _value(op):
    if "value" not in op:
        raise PatchError(f"{op.get('op')} operation, missing value field")
    return op["value"]


def json_patch(doc, ops):
    if not isinstance(ops, list) or not all(isinstance(o, dict) for o in ops):
        raise PatchFormatError("json: cannot unmarshal object into Go value of type "
                               "jsonpatch.Patch")
    doc = copy.deepcopy(doc)
    for op in ops:
        doc = _apply_op(doc, op)
    return doc
