#!/usr/bin/env python3
"""Relay a guest's QMP requests to its QEMU.

usage: qmp-relay.py QMP_SOCKET SERIAL_LOG REPLY_LOG

A guest cannot reach its own QEMU monitor, so a test in it prints a line

    ALLOCPROF-QMP {"execute": "balloon", "arguments": {"value": 805306368}}

on the console; this relay (started by scripts/boot.sh beside QEMU) follows
the serial log, sends every such command, once, to the QMP socket and
appends the command and QEMU's reply to REPLY_LOG.  Only the commands in
ALLOWED are relayed (a test asks for a balloon size or a virtio-mem size,
nothing else); others are logged as refused.  The relay ends when QEMU closes the socket.
"""
import json
import os
import re
import socket
import sys
import time

REQUEST = re.compile(r'ALLOCPROF-QMP (\{.*\})\s*$')
ALLOWED = {'balloon', 'query-balloon', 'qom-get', 'qom-set'}
# qom-get/qom-set: only the virtio-mem device's sizes (scripts/boot.sh).
QOM_PROPERTIES = {('vm0', 'requested-size'), ('vm0', 'size')}


def connect(path, tries=300):
    for _ in range(tries):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    return None


class Qmp:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b''
        self.read()                     # the greeting
        self.command({'execute': 'qmp_capabilities'})

    def read(self):
        """The next message that is not an asynchronous event."""
        while True:
            while b'\n' not in self.buf:
                data = self.sock.recv(65536)
                if not data:
                    raise EOFError
                self.buf += data
            line, self.buf = self.buf.split(b'\n', 1)
            msg = json.loads(line)
            if 'event' not in msg:
                return msg

    def command(self, cmd):
        self.sock.sendall(json.dumps(cmd).encode() + b'\n')
        return self.read()


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    sock_path, serial, replies = argv
    sock = connect(sock_path)
    if sock is None:
        sys.exit(f'qmp-relay: cannot connect to {sock_path}')
    try:
        qmp = Qmp(sock)
    except (EOFError, OSError, ValueError):
        return
    pos = 0
    with open(replies, 'a') as out:
        while True:
            try:
                with open(serial, 'rb') as f:
                    f.seek(pos)
                    chunk = f.read()
            except OSError:
                chunk = b''
            # Only whole lines: a request being written is read next time.
            end = chunk.rfind(b'\n') + 1
            pos += end
            for raw in chunk[:end].splitlines():
                m = REQUEST.search(raw.decode(errors='replace').rstrip('\r'))
                if not m:
                    continue
                try:
                    cmd = json.loads(m.group(1))
                except ValueError:
                    out.write(f'refused (not JSON): {m.group(1)}\n')
                    continue
                if not isinstance(cmd, dict) or cmd.get('execute') not in ALLOWED:
                    out.write(f'refused (not allowed): {m.group(1)}\n')
                    continue
                if cmd['execute'].startswith('qom-'):
                    args = cmd.get('arguments')
                    if not isinstance(args, dict) or \
                            (args.get('path'), args.get('property')) not in QOM_PROPERTIES:
                        out.write(f'refused (not allowed): {m.group(1)}\n')
                        continue
                try:
                    reply = qmp.command(cmd)
                except (EOFError, OSError, ValueError):
                    return
                out.write(f'{json.dumps(cmd)} -> {json.dumps(reply)}\n')
                out.flush()
            # QEMU gone: the socket reads EOF.
            sock.setblocking(False)
            try:
                if sock.recv(65536, socket.MSG_PEEK) == b'':
                    return
            except BlockingIOError:
                pass
            except OSError:
                return
            finally:
                sock.setblocking(True)
            time.sleep(0.2)


if __name__ == '__main__':
    main(sys.argv[1:])
