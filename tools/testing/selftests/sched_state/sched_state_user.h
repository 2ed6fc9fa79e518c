/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user-space programs of sched_state share: one transaction on the
 * module's control file (see sched_state.h for the protocol).
 */
#ifndef SCHED_STATE_USER_H
#define SCHED_STATE_USER_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sched_state.h"

/*
 * Write @req on a descriptor of its own, then read the reply into @reply
 * (@len bytes, NUL-terminated) unless @reply is NULL.  Returns 0, or -errno
 * of the open, the write or the read.
 */
static inline int sched_state_request(const char *req, char *reply,
				      size_t len)
{
	int fd, ret = 0;
	ssize_t n;

	fd = open(SCHED_STATE_CONTROL, O_RDWR);
	if (fd < 0)
		return -errno;
	if (write(fd, req, strlen(req)) < 0) {
		ret = -errno;
	} else if (reply) {
		n = read(fd, reply, len - 1);
		if (n < 0)
			ret = -errno;
		else
			reply[n] = '\0';
	}
	close(fd);
	return ret;
}

#endif /* SCHED_STATE_USER_H */
