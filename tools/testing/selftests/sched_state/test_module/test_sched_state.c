// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: tasks put in a named sleep state with set_current_state(),
 * on demand, for tools/testing/selftests/sched_state.
 *
 * The harness talks to /sys/kernel/debug/sched_state/control; the protocol and
 * the table of states are in ../sched_state.h, shared with the harness.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../sched_state.h"

/* Bounds how many kthreads a caller can make the module hold at once. */
#define MAX_SLEEPERS	64

/* The states a module kthread can be asked to sleep in. */
static const struct {
	const char *name;
	unsigned int state;
} states[] = {
	{ "interruptible",	TASK_INTERRUPTIBLE },
	{ "uninterruptible",	TASK_UNINTERRUPTIBLE },
	{ "killable",		TASK_KILLABLE },
	{ "idle",		TASK_IDLE },
};

/* A module kthread that sleeps in @state until it is stopped. */
struct sleeper {
	struct list_head node;
	struct task_struct *task;
	unsigned int state;
};

static LIST_HEAD(sleepers);
static unsigned int nr_sleepers;
static DEFINE_MUTEX(sleepers_lock);
static struct dentry *sched_state_dir;

static int sleeper_fn(void *data)
{
	struct sleeper *s = data;

	for (;;) {
		set_current_state(s->state);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int parse_pid(const char *arg, pid_t *nr)
{
	int ret = kstrtoint(arg, 10, nr);

	if (ret)
		return ret;
	return *nr > 0 ? 0 : -EINVAL;
}

/* Called with sleepers_lock held. */
static struct sleeper *find_sleeper(pid_t nr)
{
	struct sleeper *s;

	list_for_each_entry(s, &sleepers, node)
		if (task_pid_vnr(s->task) == nr)
			return s;
	return NULL;
}

static int cmd_kthread(const char *arg, char *reply, size_t len)
{
	struct task_struct *task;
	struct sleeper *s;
	unsigned int i;
	pid_t nr;

	for (i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(arg, states[i].name))
			break;
	if (i == ARRAY_SIZE(states))
		return -EINVAL;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->state = states[i].state;

	mutex_lock(&sleepers_lock);
	if (nr_sleepers >= MAX_SLEEPERS) {
		mutex_unlock(&sleepers_lock);
		kfree(s);
		return -ENOSPC;
	}
	task = kthread_run(sleeper_fn, s, "sched_state/%s", states[i].name);
	if (IS_ERR(task)) {
		mutex_unlock(&sleepers_lock);
		kfree(s);
		return PTR_ERR(task);
	}
	s->task = get_task_struct(task);
	list_add_tail(&s->node, &sleepers);
	nr_sleepers++;
	nr = task_pid_vnr(task);
	mutex_unlock(&sleepers_lock);

	return scnprintf(reply, len, "%d\n", nr);
}

static int cmd_state(const char *arg, char *reply, size_t len)
{
	struct task_struct *task;
	unsigned int state;
	struct pid *pid;
	pid_t nr;
	int ret;

	ret = parse_pid(arg, &nr);
	if (ret)
		return ret;
	pid = find_get_pid(nr);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	state = READ_ONCE(task->__state);
	put_task_struct(task);

	return scnprintf(reply, len, "0x%x\n", state);
}

static int cmd_wake(const char *arg, char *reply, size_t len)
{
	struct sleeper *s;
	pid_t nr;
	int ret;

	ret = parse_pid(arg, &nr);
	if (ret)
		return ret;
	mutex_lock(&sleepers_lock);
	s = find_sleeper(nr);
	if (s)
		ret = wake_up_process(s->task);
	mutex_unlock(&sleepers_lock);
	if (!s)
		return -ESRCH;

	return scnprintf(reply, len, "%d\n", ret);
}

static void sleeper_free(struct sleeper *s)
{
	put_task_struct(s->task);
	kfree(s);
}

static int cmd_stop(const char *arg, char *reply, size_t len)
{
	struct sleeper *s;
	pid_t nr;
	int ret;

	ret = parse_pid(arg, &nr);
	if (ret)
		return ret;
	mutex_lock(&sleepers_lock);
	s = find_sleeper(nr);
	if (s) {
		list_del(&s->node);
		nr_sleepers--;
	}
	mutex_unlock(&sleepers_lock);
	if (!s)
		return -ESRCH;
	ret = kthread_stop(s->task);
	sleeper_free(s);

	return scnprintf(reply, len, "%d\n", ret);
}

static const struct {
	const char *verb;
	int (*fn)(const char *arg, char *reply, size_t len);
} cmds[] = {
	{ "kthread",	cmd_kthread },
	{ "state",	cmd_state },
	{ "wake",	cmd_wake },
	{ "stop",	cmd_stop },
};

/*
 * A request is "verb arg" in printable ASCII with exactly one space, and at
 * most one trailing newline.  Anything else is -EINVAL, before any verb runs.
 */
static int split_request(char *buf, size_t len, char **arg)
{
	char *space = NULL;
	size_t i;

	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	for (i = 0; i < len; i++) {
		if (buf[i] == ' ' && !space)
			space = &buf[i];
		else if (!isgraph(buf[i]))
			return -EINVAL;
	}
	if (!space || space == buf || space == &buf[len - 1])
		return -EINVAL;
	*space = '\0';
	*arg = space + 1;
	return 0;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char reply[32];
	unsigned int i;
	char *buf, *arg;
	int ret;

	if (!count || count > SCHED_STATE_MAX_REQUEST)
		return -EINVAL;
	buf = simple_transaction_get(file, ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = split_request(buf, count, &arg);
	if (ret)
		return ret;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(buf, cmds[i].verb))
			break;
	if (i == ARRAY_SIZE(cmds))
		return -EINVAL;
	ret = cmds[i].fn(arg, reply, sizeof(reply));
	if (ret < 0)
		return ret;

	memcpy(buf, reply, ret);
	simple_transaction_set(file, ret);
	return count;
}

static const struct file_operations control_fops = {
	.owner		= THIS_MODULE,
	.write		= control_write,
	.read		= simple_transaction_read,
	.release	= simple_transaction_release,
	.llseek		= default_llseek,
};

static int __init sched_state_init(void)
{
	sched_state_dir = debugfs_create_dir("sched_state", NULL);
	if (IS_ERR(sched_state_dir))
		return PTR_ERR(sched_state_dir);
	debugfs_create_file("control", 0600, sched_state_dir, NULL,
			    &control_fops);
	return 0;
}

static void __exit sched_state_exit(void)
{
	struct sleeper *s, *tmp;

	/* No request is in flight once the files are gone. */
	debugfs_remove_recursive(sched_state_dir);
	list_for_each_entry_safe(s, tmp, &sleepers, node) {
		kthread_stop(s->task);
		sleeper_free(s);
	}
}

module_init(sched_state_init);
module_exit(sched_state_exit);
MODULE_DESCRIPTION("Task states under set_current_state(), for kselftest");
MODULE_LICENSE("GPL");
