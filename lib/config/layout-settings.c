/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stddef.h>

#include "drivers.h"
#include "layout-settings.h"

static int fail(const char **ret_why, const char *why)
{
	*ret_why = why;
	return -EINVAL;
}

/* ---- [VirtualFunction] ---- */

/* MACAddress=, IBNodeGUID=, IBPortGUID=: stable, or a literal for one VF. */
static int vf_parse_unique(struct vf_settings *s, enum vf_key k, const char *v, bool single_vf,
			   const char **ret_why)
{
	struct vf_attrs a = {};
	int r;

	if (streq(v, "stable")) {
		s->stable |= 1u << k;
		vf_attrs_clear(&s->attrs, k);
		return 0;
	}
	r = vf_attrs_parse(&a, k, v, ret_why);
	if (r < 0)
		return r;
	if (!single_vf)
		return fail(ret_why, "a literal value needs a single-VF section such as "
				     "[VirtualFunction 0]; use stable here");
	s->stable &= ~(1u << k);
	return vf_attrs_copy(&s->attrs, &a, k);
}

int vf_settings_parse(struct vf_settings *s, enum vf_key k, const char *v, bool single_vf,
		      const char **ret_why)
{
	if (vf_key_is_unique(k))
		return vf_parse_unique(s, k, v, single_vf, ret_why);
	/* Driver=vfio_pci, as modprobe spells it, binds the driver the kernel
	 * calls vfio-pci: driver_override takes the latter only */
	if (k == VF_KEY_DRIVER) {
		const char *kernel = vf_driver_kernel_name(v);

		s->driver_written[0] = '\0';
		if (kernel && !streq(kernel, v) && strlen(v) < sizeof(s->driver_written))
			strcpy(s->driver_written, v);
		v = kernel ?: v;
	}
	return vf_attrs_parse(&s->attrs, k, v, ret_why);
}

void vf_settings_unset(struct vf_settings *s, enum vf_key k)
{
	vf_attrs_clear(&s->attrs, k);
	s->set &= ~(1u << k);
	s->stable &= ~(1u << k);
	s->rejected &= ~(1u << k);
	s->refused &= ~(1u << k);
	s->src[k] = (struct src){};
	if (k == VF_KEY_DRIVER)
		s->driver_written[0] = '\0';
}

int vf_settings_merge(struct vf_settings *dst, const struct vf_settings *src)
{
	dst->rejected |= src->rejected;
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		int r;

		if (!vf_settings_has(src, k))
			continue;
		r = vf_attrs_copy(&dst->attrs, &src->attrs, k);
		if (r < 0)
			return r;
		dst->stable = (dst->stable & ~(1u << k)) | (src->stable & (1u << k));
		dst->set |= 1u << k;
		dst->rejected &= ~(1u << k);
		dst->src[k] = src->src[k];
	}
	if (vf_settings_has(src, VF_KEY_DRIVER))
		memcpy(dst->driver_written, src->driver_written, sizeof(dst->driver_written));
	return 0;
}

void vf_settings_done(struct vf_settings *s)
{
	if (!s)
		return;
	vf_attrs_done(&s->attrs);
	*s = (struct vf_settings){};
}
