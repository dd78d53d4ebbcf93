/* Dropbear build options for the big-endian MIPS lab guest (copied to localoptions.h by
 * lab/images/mips.sh). The lab logs in with an ed25519 key only, and the static cross
 * build has no crypt(), so password logins are compiled out. */
#define DROPBEAR_SVR_PASSWORD_AUTH 0
#define DROPBEAR_SVR_PUBKEY_AUTH 1
#define DROPBEAR_ED25519 1
/* The agent's commands expect the usual locations. */
#define DEFAULT_PATH "/usr/sbin:/usr/bin:/sbin:/bin"
#define DEFAULT_ROOT_PATH "/usr/sbin:/usr/bin:/sbin:/bin"
