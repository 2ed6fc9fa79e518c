// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: tasks put to sleep in a named state with
 * set_current_state(), on demand, for tools/testing/selftests/sched_state.
 *
 * This file holds the control file,
 * /sys/kernel/debug/test_sched_state/control, and dispatches its requests
 * to the other files, one per concern; the protocol is defined in
 * ../sched_state.h, shared with the programs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "test_sched_state.h"

/* The verbs of ../sched_state.h, in the order of enum verb. */
static const struct {
	const char *name;
	int argc;
} verbs[] = {
#define SCHED_STATE_VERB(verb, argc)	{ #verb, argc },
#include "../sched_state.h"
};

/* What each verb does, by its enum verb (test_sched_state.h). */
static int (* const cmds[])(struct request *req) = {
	[VERB_kthread]			= cmd_kthread,
	[VERB_state]			= cmd_state,
	[VERB_wake]			= cmd_wake,
	[VERB_wake_interruptible]	= cmd_wake,
	[VERB_stop]			= cmd_stop,
	[VERB_wakeups]			= cmd_wakeups,
	[VERB_sleep]			= cmd_sleep,
	[VERB_race]			= cmd_race,
	[VERB_rtlock]			= cmd_rtlock,
	[VERB_bench]			= cmd_bench,
};

static_assert(ARRAY_SIZE(cmds) == ARRAY_SIZE(verbs));

static struct dentry *sched_state_dir;

/*
 * One transaction per open file, as with simple_transaction_get(), but with
 * a reply as long as its verb needs rather than at most a page: until the
 * write is done, file->private_data is REPLY_BUSY; then it is the reply,
 * or stays REPLY_BUSY if the request failed.
 */
struct reply {
	size_t size;
	char data[];
};

#define REPLY_BUSY	((struct reply *)1)
/* what a reply holds unless its verb asks for more (request_reply_len()) */
#define REPLY_LEN	256

int request_reply_len(struct request *req, size_t len)
{
	char *reply;

	if (len <= req->len)
		return 0;
	reply = kvmalloc(len, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	kvfree(req->reply);
	req->reply = reply;
	req->len = len;
	return 0;
}

int parse_int(const char *arg, int min, int max, int *val)
{
	int ret = kstrtoint(arg, 10, val);

	if (ret)
		return ret;
	return *val >= min && *val <= max ? 0 : -EINVAL;
}

/* The end of a module kthread whose work is done: sleep until stopped. */
void wait_for_kthread_stop(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

/*
 * A request is words of printable ASCII separated by single spaces, with at
 * most one trailing newline.  Anything else is -EINVAL, before any verb runs.
 */
static int split_request(char *buf, size_t len, char **argv)
{
	char *word, *c;
	int argc = 0;

	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strlen(buf) != len)
		return -EINVAL;
	while ((word = strsep(&buf, " "))) {
		if (!*word)
			return -EINVAL;
		for (c = word; *c; c++)
			if (!isascii(*c) || !isgraph(*c))
				return -EINVAL;
		if (argc == SCHED_STATE_MAX_ARGS)
			return -EINVAL;
		argv[argc++] = word;
	}
	return argc;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[SCHED_STATE_MAX_REQUEST + 1];
	struct request req = {};
	struct reply *r;
	unsigned int v;
	int argc, ret;

	if (!count || count > SCHED_STATE_MAX_REQUEST)
		return -EINVAL;
	/* only one write per open file */
	if (cmpxchg(&file->private_data, NULL, REPLY_BUSY))
		return -EBUSY;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	argc = split_request(buf, count, req.argv);
	if (argc < 0)
		return argc;

	for (v = 0; v < ARRAY_SIZE(verbs); v++)
		if (!strcmp(req.argv[0], verbs[v].name))
			break;
	if (v == ARRAY_SIZE(verbs))
		return -EINVAL;
	if (argc != verbs[v].argc)
		return -EINVAL;
	req.verb = v;
	ret = request_reply_len(&req, REPLY_LEN);
	if (ret)
		return ret;
	ret = cmds[v](&req);
	if (ret >= 0) {
		r = kvmalloc(struct_size(r, data, ret), GFP_KERNEL);
		if (r) {
			r->size = ret;
			memcpy(r->data, req.reply, ret);
			/* pairs with control_read(): the reply, then its pointer */
			smp_store_release(&file->private_data, r);
			ret = count;
		} else {
			ret = -ENOMEM;
		}
	}
	kvfree(req.reply);
	return ret;
}

static ssize_t control_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	/* pairs with control_write(): the pointer, then the reply */
	struct reply *r = smp_load_acquire(&file->private_data);

	if (!r || r == REPLY_BUSY)
		return 0;
	return simple_read_from_buffer(ubuf, count, ppos, r->data, r->size);
}

static int control_release(struct inode *inode, struct file *file)
{
	struct reply *r = file->private_data;

	if (r != REPLY_BUSY)
		kvfree(r);
	return 0;
}

static const struct file_operations control_fops = {
	.owner		= THIS_MODULE,
	.write		= control_write,
	.read		= control_read,
	.release	= control_release,
	.llseek		= default_llseek,
};

static int __init sched_state_init(void)
{
	sched_state_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("control", 0600, sched_state_dir, NULL,
			    &control_fops);
	return 0;
}

static void __exit sched_state_exit(void)
{
	/* No request is in flight once the files are gone. */
	debugfs_remove_recursive(sched_state_dir);
	sleepers_stop();
}

module_init(sched_state_init);
module_exit(sched_state_exit);
MODULE_DESCRIPTION("Task states under set_current_state(), for kselftest");
MODULE_LICENSE("GPL");
