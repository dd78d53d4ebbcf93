/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire-format constants: what the protocols define (field offsets, lengths, codes, flags) and
 * the TC verdict the programs return. Lengths and offsets are in bytes.
 */
#ifndef WF_PROTO_H
#define WF_PROTO_H

/*
 * The verdict of every program on every path, rewritten or not, garbage or not. -1 is
 * TCX_NEXT for TCX links and TC_ACT_UNSPEC for direct-action cls_bpf filters: in both worlds
 * "run the next program/filter", and when the chain ends the kernel passes the packet.
 * TC_ACT_OK (== TCX_PASS) would instead end the chain, so a garbage frame would skip every
 * later program, including other tools' (shapers, monitors): "leave the frame unchanged" is
 * "unchanged bytes + continue", which on its own is a pass.
 */
#define WF_CONTINUE (-1)

/* Ethernet framing (IEEE 802.3, 802.1Q, 802.1ad, RFC 2516 PPPoE). */
#define WF_ETH_HLEN 14      /* dst MAC 6 + src MAC 6 + ethertype 2 */
#define WF_ETH_PROTO_OFF 12 /* ethertype follows the two MAC addresses */
#define WF_ETH_P_IP 0x0800
#define WF_ETH_P_IPV6 0x86DD
#define WF_ETH_P_8021Q 0x8100   /* customer VLAN tag */
#define WF_ETH_P_8021AD 0x88A8  /* service VLAN tag (QinQ outer) */
#define WF_ETH_P_PPP_SES 0x8864 /* PPPoE session stage; discovery (0x8863) carries no IP */
#define WF_VLAN_HLEN 4          /* TCI 2 + inner ethertype 2 */
#define WF_VLAN_PROTO_OFF 2     /* the inner ethertype follows the TCI */
#define WF_PPPOE_HLEN 6         /* ver/type 1, code 1, session id 2, length 2 */
#define WF_PPPOE_VER_TYPE_OFF 0
#define WF_PPPOE_CODE_OFF 1
#define WF_PPP_PROTO_LEN 2         /* the PPP protocol field that follows the PPPoE header */
#define WF_PPPOE_VER_TYPE 0x11     /* version 1, type 1: the only values RFC 2516 defines */
#define WF_PPPOE_CODE_SESSION 0x00 /* session data frames carry code 0 */
#define WF_PPP_IP 0x0021           /* PPP protocol number of IPv4 */
#define WF_PPP_IPV6 0x0057         /* PPP protocol number of IPv6 */

/* IPv4 (RFC 791) and IPv6 (RFC 8200). */
#define WF_IP_VERSION_SHIFT 4 /* the version is the high nibble of the first byte */
#define WF_IPV4_VERSION 4
#define WF_IPV6_VERSION 6
#define WF_IPV4_IHL_MASK 0x0f /* IHL: the low nibble of the first byte */
#define WF_HLEN_UNIT 4        /* IPv4 IHL and TCP data offset count 32-bit words */
#define WF_IPV4_MIN_HLEN 20   /* IHL 5: header without options */
#define WF_IPV4_TTL_OFF 8
#define WF_IPV4_TTL_WORD_OFF 8       /* TTL shares a 16-bit checksum word with the protocol byte */
#define WF_IPV4_FRAG_OFF_MASK 0x1FFF /* fragment offset bits of frag_off; non-zero = not the first fragment */
#define WF_IPV6_HLEN 40
#define WF_IPV6_HOP_LIMIT_OFF 7
#define WF_IPV6_HOP_LIMIT_LINK 1 /* MLD (RFC 3810) and other link-local-only traffic */
#define WF_IPV6_HOP_LIMIT_ND 255 /* neighbour discovery: receivers drop any other (RFC 4861) */
#define WF_IPPROTO_TCP 6

/* TCP (RFC 9293, RFC 7323). */
#define WF_TCP_MIN_HLEN 20    /* data offset 5: header without options */
#define WF_TCP_MAX_HLEN 60    /* data offset 15, the 4-bit field's maximum */
#define WF_TCP_MAX_OPT_LEN 40 /* at most 60 - 20 bytes of options */
#define WF_TCP_DOFF_OFF 12    /* byte whose high nibble is the data offset */
#define WF_TCP_DOFF_SHIFT 4
#define WF_TCP_FLAGS_OFF 13 /* byte holding CWR..FIN */
#define WF_TCP_WINDOW_OFF 14
#define WF_TCP_CSUM_OFF 16 /* offset of the checksum inside the TCP header */
#define WF_TCP_FLAG_SYN 0x02
#define WF_TCP_FLAG_ACK 0x10
#define WF_TCPOPT_EOL 0
#define WF_TCPOPT_NOP 1
#define WF_TCPOPT_TIMESTAMP 8
#define WF_TCPOPT_LEN_OFF 1     /* an option's length byte follows its kind */
#define WF_TCPOLEN_SINGLE 1     /* EOL and NOP: the kind byte alone */
#define WF_TCPOLEN_MIN 2        /* every other option: kind 1, len 1, then its data */
#define WF_TCPOLEN_TIMESTAMP 10 /* kind 1, len 1, TSval 4, TSecr 4 */

#endif /* WF_PROTO_H */
