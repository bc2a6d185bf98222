/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "node-patch.h"
#include "json-util.h"

static const char *const cordon_state_names[_CORDON_STATE_MAX] = {
	[CORDON_STATE_SCHEDULABLE] = "schedulable",
	[CORDON_STATE_OURS] = "ours",
	[CORDON_STATE_FOREIGN] = "foreign",
	[CORDON_STATE_STALE] = "stale",
};

DEFINE_STRING_TABLE_TO(cordon_state, enum cordon_state, cordon_state_names)

enum cordon_state node_cordon_state(struct json_object *node)
{
	struct json_object *u = k8s_json_get(node, "spec", "unschedulable", NULL);
	bool cordoned = u && json_object_is_type(u, json_type_boolean) &&
			json_object_get_boolean(u);
	bool claimed = streq_ptr(k8s_json_str(node, "metadata", "annotations",
					      NODE_CORDON_ANNOTATION, NULL),
				 "true");

	if (cordoned)
		return claimed ? CORDON_STATE_OURS : CORDON_STATE_FOREIGN;
	return claimed ? CORDON_STATE_STALE : CORDON_STATE_SCHEDULABLE;
}

/* {"metadata":{"annotations":{key:value},"resourceVersion":rv},"spec":spec} as text. */
static char *patch_text(const char *key, struct json_object *value, const char *rv,
			struct json_object *spec)
{
	_cleanup_json_ struct json_object *p = json_object_new_object();
	struct json_object *meta = json_object_new_object(), *ann = json_object_new_object();
	bool ok = p && meta && ann;

	ok = ok && json_object_object_add(ann, key, value) == 0;
	value = NULL;
	ok = ok && json_object_object_add(meta, "annotations", ann) == 0;
	ann = NULL;
	if (ok && rv)
		ok = json_object_object_add(meta, "resourceVersion", json_object_new_string(rv)) ==
		     0;
	ok = ok && json_object_object_add(p, "metadata", meta) == 0;
	meta = NULL;
	if (ok && spec) {
		ok = json_object_object_add(p, "spec", spec) == 0;
		spec = NULL;
	}
	json_object_put(value);
	json_object_put(ann);
	json_object_put(meta);
	json_object_put(spec);
	return ok ? strdup(json_object_to_json_string_ext(
			    p, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) :
		    NULL;
}

static struct json_object *spec_unschedulable(bool on)
{
	struct json_object *s = json_object_new_object();

	if (s && json_object_object_add(s, "unschedulable", json_object_new_boolean(on)) < 0) {
		json_object_put(s);
		return NULL;
	}
	return s;
}

char *node_patch_cordon(const char *rv)
{
	struct json_object *spec = spec_unschedulable(true);

	if (!spec)
		return NULL;
	return patch_text(NODE_CORDON_ANNOTATION, json_object_new_string("true"), rv, spec);
}

char *node_patch_uncordon(const char *rv, bool lift)
{
	struct json_object *spec = NULL;

	if (lift && !(spec = spec_unschedulable(false)))
		return NULL;
	/* a JSON null removes the key in a merge patch */
	return patch_text(NODE_CORDON_ANNOTATION, NULL, rv, spec);
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63, as a label name; '_' becomes '-'. */
static char *annotation_key(const char *key)
{
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(key);
	char *k;

	if (n == 0 || n > 63 || !strchr(alnum, key[0]) || !strchr(alnum, key[n - 1]))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strchr(alnum, key[i]) && !strchr("-_.", key[i]))
			return NULL;
	k = strdup_printf(NODE_ANNOTATION_PREFIX "%s", key);
	for (char *p = k ? k + strlen(NODE_ANNOTATION_PREFIX) : NULL; p && *p; p++)
		if (*p == '_')
			*p = '-';
	return k;
}

static struct json_object *annotation_value(struct json_object *v)
{
	if (!v)
		return NULL;
	if (json_object_is_type(v, json_type_string))
		return json_object_new_string(json_object_get_string(v));
	return json_object_new_string(json_object_to_json_string_ext(
		v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int annotations_from_state(struct json_object *state, struct json_object *ann,
				  struct json_object *labels, char *error)
{
	json_object_object_foreach(state, key, val)
	{
		if (streq(key, NODE_STATE_CAPABLE)) {
			if (!json_object_is_type(val, json_type_boolean)) {
				snprintf(error, K8S_ERROR_MAX,
					 "--state: \"%s\" must be true or false", key);
				return -EINVAL;
			}
			/* a JSON null removes the label in a merge patch */
			if (json_object_object_add(labels, NODE_CAPABLE_LABEL,
						   json_object_get_boolean(val) ?
							   json_object_new_string("true") :
							   NULL) < 0)
				return -ENOMEM;
			continue;
		}
		_cleanup_free_ char *k = annotation_key(key);
		struct json_object *v = annotation_value(val);

		if (!k || streq(k, NODE_CORDON_ANNOTATION)) {
			json_object_put(v);
			snprintf(error, K8S_ERROR_MAX,
				 "--state: key \"%s\" cannot be an annotation name%s", key,
				 k ? " (reserved for the cordon)" : "");
			return -EINVAL;
		}
		if ((val && !v) || json_object_object_add(ann, k, v) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* {"metadata": {"annotations": {}}}, with both inner objects borrowed. */
static struct json_object *patch_new(struct json_object **ret_meta, struct json_object **ret_ann)
{
	_cleanup_json_ struct json_object *p = json_object_new_object();
	struct json_object *meta = json_object_new_object(), *ann = json_object_new_object();

	if (!p || !meta || !ann || json_object_object_add(p, "metadata", meta) < 0) {
		json_object_put(meta);
		json_object_put(ann);
		return NULL;
	}
	if (json_object_object_add(meta, "annotations", ann) < 0) {
		json_object_put(ann);
		return NULL;
	}
	*ret_meta = meta;
	*ret_ann = ann;
	return TAKE_PTR(p);
}

static int state_parse(const char *state, struct json_object **ret,
		       char error[static K8S_ERROR_MAX])
{
	struct json_object *s = NULL;

	if (strlen(state) > NODE_STATE_MAX || !(s = json_tokener_parse(state)) ||
	    !json_object_is_type(s, json_type_object)) {
		json_object_put(s);
		snprintf(error, K8S_ERROR_MAX, "--state: must be a JSON object of at most %u KiB",
			 NODE_STATE_MAX >> 10);
		return -EINVAL;
	}
	*ret = s;
	return 0;
}

/* What the node will carry: the annotations, and the labels. */
static int node_carries(struct json_object *ann, struct json_object *labels,
			struct json_object **ret)
{
	_cleanup_json_ struct json_object *out = NULL;

	if (json_object_deep_copy(ann, &out, NULL) < 0)
		return -ENOMEM;
	json_object_object_foreach(labels, k, v)
	{
		if (json_object_object_add(out, k, json_object_get(v)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(out);
	return 0;
}

int node_patch_annotations(const char *state, char **ret_patch,
			   struct json_object **ret_annotations, char error[static K8S_ERROR_MAX])
{
	_cleanup_json_ struct json_object *s = NULL, *p = NULL, *labels = json_object_new_object();
	_cleanup_free_ char *text = NULL;
	struct json_object *meta, *ann;
	int r;

	p = patch_new(&meta, &ann);
	if (!p || !labels)
		return -ENOMEM;
	r = state_parse(state, &s, error);
	if (r >= 0)
		r = annotations_from_state(s, ann, labels, error);
	if (r < 0)
		return r;
	if (json_object_object_length(labels) > 0 &&
	    json_object_object_add(meta, "labels", json_object_get(labels)) < 0)
		return -ENOMEM;
	text = strdup(json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!text)
		return -ENOMEM;
	if (ret_annotations && node_carries(ann, labels, ret_annotations) < 0)
		return -ENOMEM;
	*ret_patch = TAKE_PTR(text);
	return 0;
}
