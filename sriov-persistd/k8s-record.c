/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Keeping the operation across a crash or a reboot. */

#include <syslog.h>

#include "k8s-record.h"
#include "log.h"

int k8s_record_save(const char *state_dir, const struct operation *op)
{
	_cleanup_free_ char *text = operation_format(op);

	if (!text || mkdir_owned(state_dir, 0755) < 0)
		return -ENOMEM;
	return write_file_atomic(state_dir, K8S_RECORD_FILE, text, 0644);
}

void k8s_record_forget(const char *state_dir)
{
	_cleanup_free_ char *path = strdup_printf("%s/" K8S_RECORD_FILE, state_dir);

	if (path && unlink(path) < 0 && errno != ENOENT)
		log_msg(LOG_WARNING, "Removing %s failed: %m", path);
}

int k8s_record_load(const char *state_dir, struct operation **ret)
{
	_cleanup_free_ char *path = strdup_printf("%s/" K8S_RECORD_FILE, state_dir), *text = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = read_file(path, &text);
	if (r < 0) {
		if (r != -ENOENT)
			log_msg(LOG_WARNING, "%s: %s; ignoring it", path, read_strerror(r));
		return -ENOENT;
	}
	r = operation_parse(text, ret);
	if (r == -EBADMSG) {
		log_msg(LOG_WARNING, "%s does not parse; ignoring it", path);
		return -ENOENT;
	}
	return r;
}
