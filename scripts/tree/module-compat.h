/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module uses from mainline, for the older trees of
 * scripts/kernels.tsv: module_compat (lib.sh) passes it with -include to
 * the module's build against a KDIR that lacks it.  It comes before any
 * file's own #define pr_fmt, so it includes nothing.
 */

/* v7.0, and some stable trees; here a macro expanded where linux/slab.h is in */
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)

/* v6.6 */
#define kthread_stop_put(k)						\
	({								\
		struct task_struct *__k = (k);				\
		int __ret = kthread_stop(__k);				\
									\
		put_task_struct(__k);					\
		__ret;							\
	})
