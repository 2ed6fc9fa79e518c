# -*- coding: utf-8 -*-
#
# SPDX-License-Identifier: MIT
#
# The class below is proposed for tuxlava tuxlava/tests/kselftest.py (MIT,
# as that file), in alphabetical order (after KSelftestRtc); the import is
# this file's, the class is defined there.  KSelfTest runs the collection
# named after "kselftest-": run_kselftest.sh -c sched_state.  timeout is in
# minutes: the program's timeout in the collection's settings, and the boot.

from tuxlava.tests.kselftest import KSelfTest


class KSelftestSchedState(KSelfTest):
    name = "kselftest-sched_state"
    timeout = 15
