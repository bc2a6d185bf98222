/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The records other processes leave: a PF's status record and "what we
 * created" record (/run and /var/lib), reboot.json and the kernel arguments
 * record. Any of them may be cut short by a crash or edited by hand. */

#include "boot-loader.h"
#include "fuzz-text.h"
#include "reboot.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size);
	struct reboot_record rr;
	struct pf_created c;
	struct pf_status st;
	enum boot_loader bl;
	char **added;

	if (!text)
		return 0;
	if (pf_status_parse("0000:3b:00.0", text, &st) >= 0) {
		(void)pf_status_state_to_string(st.state);
		pf_status_done(&st);
	}
	if (pf_created_parse("0000:3b:00.0", text, &c) >= 0) {
		for (size_t i = 0; i < c.n_rebind; i++)
			if (!vf_driver_name_is_valid(c.rebind[i].driver))
				abort();
		pf_created_done(&c);
	}
	if (reboot_record_parse(text, &rr) >= 0) {
		for (size_t i = 0; i < rr.n_reasons; i++)
			if (!reboot_record_has(&rr, rr.reasons[i].pci, rr.reasons[i].text))
				abort();
		reboot_record_done(&rr);
	}
	if (kernel_args_record_parse(text, &bl, &added) >= 0) {
		_cleanup_free_ char *again = kernel_args_record_format(bl, added);

		for (char **a = added; *a; a++)
			if (!kernel_arg_allowed(*a))
				abort();
		if (!again)
			abort();
		strv_free(added);
	}
	return 0;
}
