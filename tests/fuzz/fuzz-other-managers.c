/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Other managers' files (NetworkManager keyfiles, systemd .link files and
 * their drop-ins, sriov-network-operator's interface list) are whatever
 * their tools and administrators wrote: each parser, and matching its
 * result against a PF, must survive every byte sequence. The input is fed
 * to all three, and as a .link file with itself as its drop-in. */

#include "other-managers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_match(const struct other_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(other_finding_format(&f->items[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_identity id = {
		.name = "ens1f0",
		.has_permanent_mac = true,
		.permanent_mac = { { 0xaa, 0xbb, 0xcc, 0x00, 0x00, 0x01 } },
		.pci = "0000:3b:00.0",
		.driver = "ice",
		.id_path = "pci-0000:3b:00.0",
		.iftype = "ether",
	};
	_cleanup_free_ char *text = malloc(size + 1);
	struct other_findings f = {};
	struct nm_profile p;
	struct link_file lf = {};
	struct sno_config sno;

	if (!text)
		return 0;
	if (size > 0)
		memcpy(text, data, size);
	text[size] = '\0';
	if (nm_profile_parse("/fuzz.nmconnection", text, &p) >= 0) {
		(void)nm_profile_match(&p, &id, &f);
		nm_profile_done(&p);
	}
	if (link_file_parse(&lf, "/fuzz.link", text) >= 0 &&
	    link_file_parse(&lf, "/fuzz.link.d/a.conf", text) >= 0)
		(void)link_files_match(&lf, 1, &id, &f);
	link_file_done(&lf);
	if (sno_config_scan("/fuzz.yaml", text, &sno) >= 0) {
		(void)sno_config_match(&sno, id.pci, &f);
		sno_config_done(&sno);
	}
	fuzz_match(&f);
	other_findings_done(&f);
	return 0;
}
