/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A firmware reset of a ConnectX card through mstfwreset (mstflint's
 * mlxfwreset), level 3 ("Driver restart and PCI reset"): the firmware
 * restarts with its next-boot settings (what mstconfig set), without a
 * reboot. The card's reset levels are asked first, so that a card without
 * level 3 loses nothing; then the VFs of every PF of the card are removed
 * (the tool would write 0 VFs itself, but refuses VFs bound to vfio-pci),
 * the card is reset within a bound, and what mstconfig read of it is
 * forgotten: the next read shows what the firmware runs with now. */

#include "host-linux-internal.h"
#include "mlxfwreset.h"
#include "mstconfig.h"
#include "run-tool.h"

#define MLXFWRESET_QUERY_TIMEOUT (60 * USEC_PER_SEC)
/* the tool stops the driver, resets PCI, waits for the firmware and starts
 * the driver again: tens of seconds on a real card */
#define MLXFWRESET_RESET_TIMEOUT (300 * USEC_PER_SEC)
#define MLXFWRESET_OUTPUT_MAX (64u << 10)

/* Sets the host's error to why the tool failed; returns the -errno. */
static int tool_failed(struct host_linux *hl, const char *what, int r, const struct tool_run *t,
		       usec_t timeout)
{
	_cleanup_free_ char *line = NULL;

	if (r == -ENOENT) {
		host_set_error(&hl->host, "%s not found (install the package mstflint)",
			       hl->mstfwreset);
		return r;
	}
	if (r == -ETIMEDOUT) {
		host_set_error(&hl->host, "%s %s did not finish within %llu s", hl->mstfwreset,
			       what, (unsigned long long)(timeout / USEC_PER_SEC));
		return r;
	}
	if (r < 0) {
		host_set_error(&hl->host, "%s %s: %s", hl->mstfwreset, what, strerror(-r));
		return r;
	}
	line = mstconfig_error_line(t->out, t->err);
	host_set_error(&hl->host, "%s %s failed (exit code %d)%s%s", hl->mstfwreset, what,
		       t->exit_status, line ? ": " : "", strempty(line));
	return -EIO;
}

/* 0 when the card offers level 3; -EOPNOTSUPP, or the tool's failure. */
static int query_level(struct host_linux *hl, const char *pci)
{
	char *argv[] = { hl->mstfwreset, "-d", (char *)pci, "query", NULL };
	_cleanup_free_ char *why = NULL;
	struct mlxfwreset_query q;
	struct tool_run t = {};
	int r;

	r = tool_run(argv, MLXFWRESET_QUERY_TIMEOUT, MLXFWRESET_OUTPUT_MAX, &t);
	if (r == -ENOMEM || r < 0 || t.exit_status != 0) {
		r = r == -ENOMEM ? r : tool_failed(hl, "query", r, &t, MLXFWRESET_QUERY_TIMEOUT);
		tool_run_done(&t);
		return r;
	}
	r = mlxfwreset_parse_query(t.out, &q, &why);
	tool_run_done(&t);
	if (r == -EINVAL) {
		host_set_error(&hl->host, "%s query: unexpected output: %s", hl->mstfwreset, why);
		return -EIO;
	}
	if (r < 0)
		return r;
	if (!mlxfwreset_level_supported(&q, MLXFWRESET_LEVEL_PCI_RESET)) {
		host_set_error(&hl->host,
			       "%s query: %s does not support reset level 3 (Driver restart and "
			       "PCI reset)",
			       hl->mstfwreset, pci);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* 0 VFs on every PF of pci's card. */
static int remove_card_vfs(struct host_linux *hl, const char *pci, usec_t timeout)
{
	_cleanup_strv_free_ char **pfs = NULL;
	int r;

	r = hl_list_pfs(hl, &pfs);
	for (char **p = pfs; r >= 0 && *p; p++)
		if (pci_same_device(*p, pci))
			r = hl_set_num_vfs(hl, *p, 0, timeout);
	return r;
}

static int reset(struct host_linux *hl, const char *pci)
{
	char *argv[] = { hl->mstfwreset, "-d", (char *)pci, "--level", "3", "--yes", "reset", NULL };
	struct tool_run t = {};
	int r;

	r = tool_run(argv, MLXFWRESET_RESET_TIMEOUT, MLXFWRESET_OUTPUT_MAX, &t);
	if (r >= 0 && t.exit_status == 0 && mlxfwreset_reset_done(t.out))
		r = 0;
	else if (r >= 0 && t.exit_status == 0) {
		host_set_error(&hl->host,
			       "%s reset: no \"FW was loaded successfully.\" in its output",
			       hl->mstfwreset);
		r = -EIO;
	} else if (r != -ENOMEM)
		r = tool_failed(hl, "reset", r, &t, MLXFWRESET_RESET_TIMEOUT);
	tool_run_done(&t);
	return r;
}

int hl_firmware_reset(struct host_linux *hl, const char *pci, usec_t timeout)
{
	int r;

	if (!hl->mstfwreset) {
		host_set_error(&hl->host, "a firmware reset needs mstfwreset, which this program "
					  "does not use");
		return -EOPNOTSUPP;
	}
	r = query_level(hl, pci);
	if (r >= 0)
		r = remove_card_vfs(hl, pci, timeout);
	if (r < 0)
		return r;
	r = reset(hl, pci);
	/* whatever the outcome, what mstconfig said of the card is past */
	hl_firmware_forget(hl);
	return r;
}
