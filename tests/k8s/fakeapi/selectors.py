# SPDX-License-Identifier: LGPL-2.1-or-later
"""labelSelector and fieldSelector: parsing and matching as k8s.io/apimachinery does it.

Label selectors: key, !key, key=v, key==v, key!=v, key in (a,b), key notin (a,b), key>n, key<n,
comma-separated. Field selectors: field=v, field==v, field!=v, comma-separated, backslash
escapes; which fields a resource accepts comes from FIELD_LABELS (pkg/apis/*/v1/conversion.go).
"""

import re

from .status import bad_request

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_KEY_RE = re.compile(rf"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?{_NAME}$")
_VALUE_RE = re.compile(rf"^({_NAME})?$")


class _Lexer:
    """Tokens: identifiers, operators, '(', ')', ','."""

    OPS = ("==", "!=", "=", ">", "<", "!", "(", ")", ",")

    def __init__(self, text):
        self.tokens = []
        i = 0
        while i < len(text):
            c = text[i]
            if c.isspace():
                i += 1
                continue
            op = next((o for o in self.OPS if text.startswith(o, i)), None)
            if op:
                self.tokens.append(op)
                i += len(op)
                continue
            j = i
            while j < len(text) and not text[j].isspace() and not any(
                    text.startswith(o, j) for o in self.OPS):
                j += 1
            word = text[i:j]
            self.tokens.append({"in": "in", "notin": "notin"}.get(word, ("id", word)))
            i = j
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self):
        tok = self.peek()
        self.pos += 1
        return tok


def _err(msg):
    return bad_request(f"unable to parse requirement: {msg}")


def _ident(lex, what):
    tok = lex.next()
    if not isinstance(tok, tuple):
        raise _err(f"found '{tok if tok else 'EOS'}', expected: {what}")
    return tok[1]


def _check_key(key):
    if len(key) > 316 or not _KEY_RE.match(key) or len(key.rsplit("/", 1)[-1]) > 63:
        raise _err(f'<nil>: Invalid value: "{key}": name part must consist of alphanumeric '
                   "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                   "character")


def _check_value(value):
    if len(value) > 63 or not _VALUE_RE.match(value):
        raise _err(f'values[0]: Invalid value: "{value}": a valid label must be an empty string '
                   "or consist of alphanumeric characters, '-', '_' or '.', and must start and "
                   "end with an alphanumeric character")


def _value_set(lex):
    if lex.next() != "(":
        raise _err("found '', expected: '('")
    values, cur = [], None
    while True:
        tok = lex.next()
        if tok == ")":
            if cur is not None or values:
                values.append(cur or "")
            return values
        if tok == ",":
            values.append(cur or "")
            cur = None
        elif isinstance(tok, tuple) and cur is None:
            cur = tok[1]
        else:
            shown = tok[1] if isinstance(tok, tuple) else tok or "EOS"
            raise _err(f"found '{shown}', expected: ',', ')' or identifier")


def _requirement(lex):
    if lex.peek() == "!":
        lex.next()
        key = _ident(lex, "identifier")
        _check_key(key)
        return ("!", key, ())
    key = _ident(lex, "identifier")
    _check_key(key)
    tok = lex.peek()
    if tok is None or tok == ",":
        return ("exists", key, ())
    lex.next()
    if tok in ("=", "==", "!="):
        nxt = lex.peek()
        value = lex.next()[1] if isinstance(nxt, tuple) else ""
        _check_value(value)
        return ("!=" if tok == "!=" else "=", key, (value,))
    if tok in ("in", "notin"):
        values = _value_set(lex)
        for v in values:
            _check_value(v)
        if not values:
            raise _err("for 'in', 'notin' operators, values set can't be empty")
        return (tok, key, tuple(values))
    if tok in (">", "<"):
        value = _ident(lex, "identifier")
        if not re.fullmatch(r"-?\d+", value):
            raise _err("for 'Gt', 'Lt' operators, the value must be an integer")
        return (tok, key, (int(value),))
    raise _err(f"found '{tok}', expected: in, notin, =, ==, !=, gt, lt")


def parse_labels(text):
    """A list of requirements (op, key, values); [] selects everything."""
    lex = _Lexer(text or "")
    reqs = []
    while lex.peek() is not None:
        reqs.append(_requirement(lex))
        tok = lex.next()
        if tok is None:
            break
        if tok != ",":
            raise _err(f"found '{tok if isinstance(tok, str) else tok[1]}', expected: ',' or 'end of string'")
        if lex.peek() is None:
            raise _err("found '', expected: identifier after ','")
    return reqs


def _int_or_none(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def labels_match(reqs, labels):
    labels = labels or {}
    for op, key, values in reqs:
        has, val = key in labels, labels.get(key)
        ok = {
            "exists": lambda: has,
            "!": lambda: not has,
            "=": lambda: has and val in values,
            "in": lambda: has and val in values,
            "!=": lambda: not has or val not in values,
            "notin": lambda: not has or val not in values,
            ">": lambda: has and _int_or_none(val) is not None and int(val) > values[0],
            "<": lambda: has and _int_or_none(val) is not None and int(val) < values[0],
        }[op]()
        if not ok:
            return False
    return True


def selector_from_match(match_labels=None, match_expressions=None):
    """A metav1.LabelSelector as requirements."""
    reqs = [("=", k, (v,)) for k, v in sorted((match_labels or {}).items())]
    ops = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}
    for e in match_expressions or []:
        reqs.append((ops[e["operator"]], e["key"], tuple(e.get("values") or ())))
    return reqs


# --- field selectors ---------------------------------------------------------------------

def _str(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def _path(obj, *keys):
    for k in keys:
        obj = (obj or {}).get(k)
    return obj


_META = {"metadata.name": lambda o: _path(o, "metadata", "name"),
         "metadata.namespace": lambda o: _path(o, "metadata", "namespace")}

FIELD_LABELS = {
    "pods": dict(_META, **{
        "spec.nodeName": lambda o: _path(o, "spec", "nodeName"),
        "spec.restartPolicy": lambda o: _path(o, "spec", "restartPolicy"),
        "spec.schedulerName": lambda o: _path(o, "spec", "schedulerName"),
        "spec.serviceAccountName": lambda o: _path(o, "spec", "serviceAccountName"),
        "spec.hostNetwork": lambda o: bool(_path(o, "spec", "hostNetwork")),
        "status.phase": lambda o: _path(o, "status", "phase"),
        "status.podIP": lambda o: _path(o, "status", "podIP"),
        "status.nominatedNodeName": lambda o: _path(o, "status", "nominatedNodeName"),
    }),
    "nodes": {"metadata.name": _META["metadata.name"],
              "spec.unschedulable": lambda o: bool(_path(o, "spec", "unschedulable"))},
    "leases": _META,
    "poddisruptionbudgets": _META,
}
FIELD_ALIASES = {"pods": {"spec.host": "spec.nodeName"}}


def _split_unescaped(text, sep):
    parts, cur, i = [], "", 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            cur += text[i:i + 2]
            i += 2
            continue
        if text[i] == sep:
            parts.append(cur)
            cur = ""
        else:
            cur += text[i]
        i += 1
    parts.append(cur)
    return parts


def _unescape(value):
    out, i = "", 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value):
            if value[i + 1] not in "\\,=!":
                raise bad_request(f"invalid field selector: invalid escape sequence: \\{value[i + 1]}")
            out += value[i + 1]
            i += 2
            continue
        if value[i] in ",=":
            raise bad_request("invalid field selector: unescaped reserved character")
        out += value[i]
        i += 1
    return out


def _field_term(term):
    for op in ("!=", "==", "="):
        idx = term.find(op)
        if idx >= 0:
            return term[:idx], "!=" if op == "!=" else "=", _unescape(term[idx + len(op):])
    raise bad_request(f"invalid selector: '{term}'; can't understand '{term}'")


def parse_fields(text, resource):
    """[(field, op, value)] for `resource`; 400 for syntax errors and unsupported fields."""
    if not text:
        return []
    terms = []
    for part in _split_unescaped(text, ","):
        if part == "":
            continue
        field, op, value = _field_term(part)
        field = FIELD_ALIASES.get(resource, {}).get(field, field)
        if field not in FIELD_LABELS[resource]:
            raise bad_request(f"field label not supported: {field}")
        terms.append((field, op, value))
    return terms


def fields_match(terms, resource, obj):
    for field, op, value in terms:
        actual = _str(FIELD_LABELS[resource][field](obj))
        if (actual == value) != (op == "="):
            return False
    return True
