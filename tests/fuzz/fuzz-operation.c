/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the daemon reads back from its own Kubernetes bookkeeping:
 * operation.json (cut short by a crash, edited by hand, from another
 * version) and k8s-notify's JSON result. A record that parses must write
 * back as the same text. */

#include "fuzz-text.h"
#include "operation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size), *again = NULL, *back = NULL;
	struct step_result result;
	struct operation *op = NULL, *op2 = NULL;

	if (!text)
		return 0;
	if (step_result_parse(text, &result) >= 0)
		step_result_done(&result);
	if (operation_parse(text, &op) < 0)
		return 0;
	again = operation_format(op);
	if (again && operation_parse(again, &op2) >= 0) {
		back = operation_format(op2);
		if (back && !streq(again, back))
			abort();
	}
	operation_free(op2);
	operation_free(op);
	return 0;
}
