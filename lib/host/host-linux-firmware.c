/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* ConnectX firmware settings through mstconfig (Debian's mstflint): the
 * firmware VF limit (SRIOV_EN, NUM_OF_VFS) and the port link type
 * (LINK_TYPE_P<n>) that take effect at the next reboot. The tool runs with
 * an argument vector and bounds (run-tool.c), its output is parsed strictly
 * (mstconfig.c), and a query, which takes seconds on a real card, is made
 * once per device and process and forgotten when we change a setting. */

#include <fcntl.h>
#include <inttypes.h>

#include "drivers.h"
#include "host-linux-internal.h"
#include "mstconfig.h"
#include "run-tool.h"

#define MSTCONFIG_TIMEOUT (60 * USEC_PER_SEC)
#define MSTCONFIG_OUTPUT_MAX (256u << 10)
#define CAP_SYS_ADMIN_BIT 21

/* What one query of a device gave: its parameters, or why not. */
struct hl_firmware {
	char device[PCI_ADDR_MAX]; /* "0000:41:00": every function of the card */
	struct mst_config config;
	char *error;
};

void hl_firmware_forget(struct host_linux *hl)
{
	for (size_t i = 0; i < hl->n_firmware; i++)
		free(hl->firmware[i].error);
	hl->firmware = mfree(hl->firmware);
	hl->n_firmware = 0;
}

/* "0000:41:00.1" -> "0000:41:00": what every function of the card shares. */
static void pci_device(const char *pci, char device[static PCI_ADDR_MAX])
{
	const char *dot = strrchr(pci, '.');
	size_t n = dot ? (size_t)(dot - pci) : strlen(pci);

	snprintf(device, PCI_ADDR_MAX, "%.*s", (int)n, pci);
}

/* "0000:41:00.1" -> 2, for LINK_TYPE_P2. */
static unsigned pci_port(const char *pci)
{
	const char *dot = strrchr(pci, '.');

	return dot ? (unsigned)(dot[1] - '0') + 1 : 1;
}

/* Whether this process may use what mstconfig needs (PCI configuration
 * space past its header, CAP_SYS_ADMIN), from /proc/self/status. */
static bool have_sys_admin(struct host_linux *hl)
{
	_cleanup_free_ char *status = NULL;
	unsigned long long eff;
	const char *p;

	if (read_file_at(hl->procfs_fd, "self/status", 64 << 10, &status, NULL) < 0)
		return true; /* cannot tell: say nothing */
	p = strstr(status, "\nCapEff:\t");
	if (!p || sscanf(p + 9, "%llx", &eff) != 1)
		return true;
	return eff & (1ull << CAP_SYS_ADMIN_BIT);
}

/* "mstconfig ... failed: <its first -E- line>", and the capability it
 * lacks when that is the likely reason, with the command that has it: the
 * shipped units do not, and sriovctl asks the daemon unless a path option
 * is given; --runtime-dir with the default keeps the daemon's layouts,
 * records and per-PF locks (sriov-persist.layout(5), FIRMWARE). */
static char *tool_failure(struct host_linux *hl, const char *what, const char *pci, int r,
			  const struct tool_run *t)
{
	_cleanup_free_ char *line = NULL;

	if (r == -ENOENT)
		return strdup_printf("%s not found (install the package mstflint)", hl->mstconfig);
	if (r == -ETIMEDOUT)
		return strdup_printf("%s %s did not finish within %llu s", hl->mstconfig, what,
				     (unsigned long long)(MSTCONFIG_TIMEOUT / USEC_PER_SEC));
	if (r < 0)
		return strdup_printf("%s %s: %s", hl->mstconfig, what, strerror(-r));
	line = mstconfig_error_line(t->out, t->err);
	if (!line)
		return NULL;
	if (!have_sys_admin(hl))
		return strdup_printf(
			"%s %s failed (exit code %d): %s; it needs CAP_SYS_ADMIN, "
			"which this process does not have (nor have sriov-persistd and "
			"the apply units, as shipped): run 'sudo sriovctl --runtime-dir "
			"/run/sriov-persist apply %s' once, and reboot",
			hl->mstconfig, what, t->exit_status, line, pci);
	return strdup_printf("%s %s failed (exit code %d): %s", hl->mstconfig, what, t->exit_status,
			     line);
}

static int query(struct host_linux *hl, const char *pci, struct hl_firmware *f)
{
	char *argv[] = { (char *)hl->mstconfig, "-d", (char *)pci, "-e", "query", NULL };
	_cleanup_free_ char *why = NULL;
	struct tool_run t = {};
	int r;

	r = tool_run(argv, MSTCONFIG_TIMEOUT, MSTCONFIG_OUTPUT_MAX, &t);
	if (r == -ENOMEM)
		return r;
	if (r >= 0 && t.exit_status == 0) {
		r = mstconfig_parse_query(t.out, &f->config, &why);
		if (r >= 0 || r == -ENOMEM) {
			tool_run_done(&t);
			return r;
		}
		f->error = strdup_printf("%s query: unexpected output: %s", hl->mstconfig, why);
	} else
		f->error = tool_failure(hl, "query", pci, r, &t);
	tool_run_done(&t);
	return f->error ? 0 : -ENOMEM;
}

static int lookup(struct host_linux *hl, const char *pci, const struct hl_firmware **ret)
{
	char device[PCI_ADDR_MAX];
	struct hl_firmware *a, f = {};
	int r;

	pci_device(pci, device);
	for (size_t i = 0; i < hl->n_firmware; i++)
		if (streq(hl->firmware[i].device, device)) {
			*ret = &hl->firmware[i];
			return 0;
		}
	memcpy(f.device, device, sizeof(f.device));
	r = query(hl, pci, &f);
	if (r < 0)
		return r;
	a = reallocarray(hl->firmware, hl->n_firmware + 1, sizeof(*a));
	if (!a) {
		free(f.error);
		return -ENOMEM;
	}
	hl->firmware = a;
	a[hl->n_firmware] = f;
	*ret = &a[hl->n_firmware++];
	return 0;
}

int hl_read_firmware(struct host_linux *hl, struct pf_state *pf)
{
	const struct driver_info *di = driver_info_get(pf->driver);
	const struct hl_firmware *f;
	char name[32];
	uint32_t sriov_en, num_vfs, link;
	int r;

	if (!di->firmware_vfs && !di->firmware_link_type)
		return 0;
	r = lookup(hl, pf->pci, &f);
	if (r < 0)
		return r;
	if (f->error) {
		pf->firmware_error = strdup(f->error);
		return pf->firmware_error ? 0 : -ENOMEM;
	}
	if (di->firmware_vfs && mst_config_get(&f->config, "SRIOV_EN", &sriov_en) &&
	    mst_config_get(&f->config, "NUM_OF_VFS", &num_vfs))
		pf->firmware_total_vfs = sriov_en ? (int)num_vfs : 0;
	snprintf(name, sizeof(name), "LINK_TYPE_P%u", pci_port(pf->pci));
	if (di->firmware_link_type && mst_config_get(&f->config, name, &link) &&
	    (link == MST_LINK_TYPE_IB || link == MST_LINK_TYPE_ETH)) {
		pf->has_firmware_link_type = true;
		pf->firmware_link_type = link == MST_LINK_TYPE_IB ? LINK_TYPE_INFINIBAND :
								    LINK_TYPE_ETHERNET;
	}
	return 0;
}

/* mstconfig -y -d PCI set NAME=VALUE ...: the device's next-boot values. */
static int set(struct host_linux *hl, const char *pci, char *const *assignments, usec_t timeout)
{
	char *argv[8] = { (char *)hl->mstconfig, "-y", "-d", (char *)pci, "set" };
	_cleanup_free_ char *why = NULL;
	struct tool_run t = {};
	size_t n = 5;
	int r;

	for (; *assignments && n < ELEMENTSOF(argv) - 1; assignments++)
		argv[n++] = *assignments;
	argv[n] = NULL;
	/* what was read of the card is no longer true, whatever the outcome */
	hl_firmware_forget(hl);
	r = tool_run(argv, timeout ?: MSTCONFIG_TIMEOUT, MSTCONFIG_OUTPUT_MAX, &t);
	if (r == -ENOMEM)
		return r;
	if (r >= 0 && t.exit_status == 0 && mstconfig_set_done(t.out)) {
		tool_run_done(&t);
		return 0;
	}
	why = r >= 0 && t.exit_status == 0 ?
		      strdup_printf("%s set: no \"Applying... Done!\" in its output",
				    hl->mstconfig) :
		      tool_failure(hl, "set", pci, r, &t);
	tool_run_done(&t);
	if (!why)
		return -ENOMEM;
	host_set_error(&hl->host, "%s", why);
	return r < 0 ? r : -EIO;
}

int hl_set_firmware_vfs(struct host_linux *hl, const char *pf, uint32_t n, usec_t timeout)
{
	char num[32];
	char *const a[] = { "SRIOV_EN=1", num, NULL };

	snprintf(num, sizeof(num), "NUM_OF_VFS=%" PRIu32, n);
	return set(hl, pf, a, timeout);
}

int hl_set_link_type(struct host_linux *hl, const char *pf, enum link_type t, usec_t timeout)
{
	char assign[32];
	char *const a[] = { assign, NULL };

	snprintf(assign, sizeof(assign), "LINK_TYPE_P%u=%u", pci_port(pf),
		 t == LINK_TYPE_INFINIBAND ? MST_LINK_TYPE_IB : MST_LINK_TYPE_ETH);
	return set(hl, pf, a, timeout);
}
