#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rdma-core's own test suite (python3-pyverbs), run as its run_tests.py
runs it, with one change for iWARP devices: a device's net_device and
address are found through `rdma link` (the netdev it is bound to), not
through /sys/class/infiniband/DEV/device/net, which exists only for a
device with a parent bus device (siw and rxe have none; xiw has none,
Documentation/interop.rst says why). Give --gid 0 as well: the suite
otherwise takes an iWARP GID (the MAC, then zeros) for an unset one.

    rdmacore_iwarp.py TESTS_DIR [run_tests.py arguments]
"""
import json
import os
import subprocess
import sys
import unittest
from importlib.machinery import SourceFileLoader

tests_dir = sys.argv.pop(1)
sys.path.insert(0, tests_dir)
from args_parser import parser  # noqa: E402

tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
base = sys.modules['tests.base']


def netdev_of(dev, port):
    out = subprocess.check_output(['rdma', '-j', 'link', 'show', f'{dev}/{port}'])
    return json.loads(out.decode())[0]['netdev']


def get_ip_mac(self, dev, port, idx):
    try:
        ip, mac = self.get_ip_mac_address(netdev_of(dev, port))
    except (KeyError, IndexError, subprocess.CalledProcessError):
        ip = mac = None
    self.args.append([dev, port, idx, ip, mac])


base.RDMATestCase._get_ip_mac = get_ip_mac
parser.parse_args()
unittest.main(module=tests)
