#!/usr/bin/env python3
"""Sends Ethernet frames through an AF_PACKET TX ring (TPACKET_V2), one frame per argument (hex).

Why a TX ring: the kernel builds each frame's skb with only the link-layer header in the
linear area and the rest in page fragments that point into the ring (net/packet/af_packet.c,
tpacket_fill_skb). A TC egress program then finds the IPv4 and TCP headers outside the
linear area and must pull them in: the path that ordinary sockets (and BPF_PROG_TEST_RUN)
never produce. The frames go through the qdisc layer, so TC egress sees them.

usage: tx-ring-send.py IFNAME HEXFRAME...
"""
import mmap
import socket
import struct
import sys
import time

SOL_PACKET = 263
PACKET_VERSION = 10
PACKET_TX_RING = 13
TPACKET_V2 = 1
TP_STATUS_AVAILABLE = 0
TP_STATUS_SEND_REQUEST = 1
FRAME_SIZE = 4096
FRAME_NR = 16
# TPACKET2_HDRLEN - sizeof(struct sockaddr_ll): where the kernel reads a TX frame's data
DATA_OFFSET = 32


def main() -> None:
    ifname, frames = sys.argv[1], [bytes.fromhex(h) for h in sys.argv[2:]]
    if not frames or len(frames) > FRAME_NR:
        sys.exit(f"1..{FRAME_NR} frames")
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V2)
    # struct tpacket_req: block_size, block_nr, frame_size, frame_nr
    s.setsockopt(SOL_PACKET, PACKET_TX_RING, struct.pack("IIII", FRAME_SIZE, FRAME_NR, FRAME_SIZE, FRAME_NR))
    s.bind((ifname, 0))
    ring = mmap.mmap(s.fileno(), FRAME_SIZE * FRAME_NR, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    for i, f in enumerate(frames):
        base = i * FRAME_SIZE
        ring[base + DATA_OFFSET : base + DATA_OFFSET + len(f)] = f
        # struct tpacket2_hdr: tp_status, tp_len, tp_snaplen (u32 each); status last
        struct.pack_into("II", ring, base + 4, len(f), len(f))
        struct.pack_into("I", ring, base, TP_STATUS_SEND_REQUEST)
    s.send(b"")
    deadline = time.time() + 5
    while any(struct.unpack_from("I", ring, i * FRAME_SIZE)[0] != TP_STATUS_AVAILABLE for i in range(len(frames))):
        if time.time() > deadline:
            sys.exit("the kernel did not send every frame")
        time.sleep(0.01)
    print(len(frames))


if __name__ == "__main__":
    main()
