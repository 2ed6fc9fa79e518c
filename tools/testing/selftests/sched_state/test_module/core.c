// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: tasks put in a state on demand, for
 * tools/testing/selftests/sched_state.  This file holds the control file and
 * its verbs; the protocol is ../sched_state.h.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "test_sched_state.h"

static const struct sched_state_verb {
	const char *name;
	int argc;
	int (*handler)(struct sched_state_req *req);
} sched_state_verbs[] = {
	{ "kthread",		2, sched_state_kthread },
	{ "wake",		2, sched_state_wake },
	{ "wake_interruptible",	2, sched_state_wake },
	{ "wakeups",		2, sched_state_wakeups },
	{ "sleep",		4, sched_state_sleep },
	{ "race",		3, sched_state_race },
	{ "rtlock",		1, sched_state_rtlock },
	{ "rtlock_rw",		1, sched_state_rtlock },
	{ "rtlock_nowake",	1, sched_state_rtlock },
	{ "rtlock_block",	1, sched_state_rtlock },
	{ "bench",		4, sched_state_bench },
};

static struct dentry *sched_state_dir;

int sched_state_parse_int(const char *arg, int min, int max, int *val)
{
	if (kstrtoint(arg, 10, val) || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

/* The end of a module kthread whose work is done: sleep until stopped. */
void sched_state_wait_for_stop(void)
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
 * Split @buf (@len bytes and a NUL) into @argv: words of printable ASCII
 * separated by single spaces, at most one trailing newline.
 */
static int sched_state_split(char *buf, size_t len, char **argv)
{
	char *word, *c;
	int argc = 0;

	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strlen(buf) != len)
		return -EINVAL;
	while ((word = strsep(&buf, " "))) {
		if (!*word || argc == SCHED_STATE_MAX_ARGS)
			return -EINVAL;
		for (c = word; *c; c++)
			if (!isascii(*c) || !isgraph(*c))
				return -EINVAL;
		argv[argc++] = word;
	}
	return argc;
}

static ssize_t sched_state_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct sched_state_req req = { .file = file };
	char buf[SCHED_STATE_MAX_REQUEST + 1];
	const struct sched_state_verb *verb;
	int ret;

	if (!count || count > SCHED_STATE_MAX_REQUEST)
		return -EINVAL;
	req.reply = simple_transaction_get(file, ubuf, count);
	if (IS_ERR(req.reply))
		return PTR_ERR(req.reply);
	/* the reply is written over the request: split a copy */
	memcpy(buf, req.reply, count);
	buf[count] = '\0';
	req.argc = sched_state_split(buf, count, req.argv);
	if (req.argc < 0)
		return req.argc;

	for (verb = sched_state_verbs;
	     verb < sched_state_verbs + ARRAY_SIZE(sched_state_verbs); verb++) {
		if (strcmp(req.argv[0], verb->name))
			continue;
		if (req.argc != verb->argc)
			return -EINVAL;
		ret = verb->handler(&req);
		if (ret < 0)
			return ret;
		simple_transaction_set(file, ret);
		return count;
	}
	return -EINVAL;
}

static int sched_state_file_release(struct inode *inode, struct file *file)
{
	sched_state_release(file);
	return simple_transaction_release(inode, file);
}

static const struct file_operations sched_state_fops = {
	.owner		= THIS_MODULE,
	.write		= sched_state_write,
	.read		= simple_transaction_read,
	.release	= sched_state_file_release,
	.llseek		= default_llseek,
};

static int __init sched_state_init(void)
{
	sched_state_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("control", 0600, sched_state_dir, NULL,
			    &sched_state_fops);
	return 0;
}

/* An open file holds the module: no request and no kthread is left. */
static void __exit sched_state_exit(void)
{
	debugfs_remove_recursive(sched_state_dir);
}

module_init(sched_state_init);
module_exit(sched_state_exit);
MODULE_DESCRIPTION("Tasks put in a task state on demand, for kselftest");
MODULE_LICENSE("GPL");
