/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Kernel arguments in the boot loader's configuration ([Reboot]
 * KernelArguments=manage): which tool the host uses, adding the IOMMU
 * arguments through it and taking out again what was added, and the record
 * of what was added. Every path is under root ("" for the host itself, a
 * directory in tests). The tools run from an argument vector with a
 * time-out and an output bound (run-tool.h), never through a shell. */

#include "model.h"

/* What sriov-persist added, with which tool: {"boot_loader": "grub",
 * "added": ["intel_iommu=on", "iommu=pt"]} */
#define KERNEL_ARGS_RECORD "/var/lib/sriov-persist/kernel-arguments.json"
/* The Debian drop-in that carries the arguments to update-grub. */
#define KERNEL_ARGS_GRUB_DROPIN "/etc/default/grub.d/90-sriov-persist.cfg"

/* The tool this host's boot loader takes kernel arguments through, looked
 * for in this order: grubby; kernel-install with /etc/kernel/cmdline;
 * update-grub with /etc/default/grub and /boot/grub/grub.cfg. */
enum boot_loader boot_loader_detect(const char *root);

/* The command lines that the configuration of bl's tool under root gives the
 * next boot (boot-config.c): update-grub's /etc/default/grub with its
 * drop-ins (one), /etc/kernel/cmdline (one), or each BLS entry's options
 * (grubby; none without entries). NULL for BOOT_LOADER_NONE. -EBADMSG and
 * *ret_error ("/etc/default/grub:9: ...") when they cannot be told without
 * a shell or a file cannot be read: then nothing may be edited.
 * *ret_iommu_off: the words of these command lines that turn the IOMMU off
 * (kernel_arg_turns_iommu_off()), as pairs: where ("/etc/default/grub:3",
 * each line that holds it), the word; NULL when none. */
int boot_loader_cmdlines(const char *root, enum boot_loader bl, char ***ret_cmdlines,
			 char ***ret_iommu_off, char **ret_error);

/* Whether arg turns off what KernelArguments=manage turns on:
 * intel_iommu= or amd_iommu= with "off", iommu= with "off" or "nopt". */
bool kernel_arg_turns_iommu_off(const char *arg) _pure_;

/* Whether arg is one that KernelArguments=manage may add: the IOMMU ones. */
bool kernel_arg_allowed(const char *arg) _pure_;

/* The record's text; pure. -EBADMSG when it is not a record (unknown
 * fields, arguments that are not ours to add), -ENOMEM. */
int kernel_args_record_parse(const char *text, enum boot_loader *ret_loader, char ***ret_added);
char *kernel_args_record_format(enum boot_loader loader, char *const *added);
/* The record under root: -ENOENT when there is none. */
int kernel_args_record_read(const char *root, enum boot_loader *ret_loader, char ***ret_added);

/* line with words appended (those not in it already), or with them taken
 * out: for /etc/kernel/cmdline; pure, caller frees. */
char *cmdline_add_words(const char *line, char *const *words);
char *cmdline_remove_words(const char *line, char *const *words);
/* The Debian drop-in's text for args. */
char *grub_dropin_format(char *const *args);

/* Adds args (each kernel_arg_allowed) through the host's tool and records
 * them; on failure the configuration is left as it was and *ret_error says
 * why. Arguments recorded already are not added again. */
int kernel_args_add(const char *root, char *const *args, char **ret_error);
/* Takes out what the record says was added, and the record. 0 when there is
 * no record. */
int kernel_args_remove(const char *root, char **ret_error);
