/* SPDX-License-Identifier: GPL-2.0 */
/* For a KDIR older than mainline (lib.sh: module_compat); -include'd first: no #include */

/* v7.0, and some stable trees; expanded where linux/slab.h is in */
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
