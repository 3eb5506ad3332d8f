#!/bin/sh
# Installs vc-hypernode-controller-manager on a bare Linux node: the binary,
# the kubectl-hypernode link to it (the kubectl plugin), its hardened systemd
# unit, an environment file for extra flags and an uninstall script
# (docs/deploy.md). In the spirit of the k3s installer:
#
#   curl -sfL <base-url>/<version>/install.sh |
#     INSTALL_VC_HNC_BASE_URL=<base-url> INSTALL_VC_HNC_VERSION=<version> sh -
#
# Every option is a flag and an environment variable (flags win):
#   --version V        INSTALL_VC_HNC_VERSION      release to install, with or without a leading v
#                                                  (default: latest)
#   --base-url URL     INSTALL_VC_HNC_BASE_URL     releases live at <URL>/<version>/
#   --bin-file FILE    INSTALL_VC_HNC_BIN_FILE     install this local executable instead of
#                                                  downloading; SHA256SUMS and the .service
#                                                  file are taken from its directory
#   --install-dir DIR  INSTALL_VC_HNC_BIN_DIR      default /usr/local/bin
#   --kubeconfig FILE  INSTALL_VC_HNC_KUBECONFIG   default /etc/vc-hypernode-controller-manager/kubeconfig
#   --flags "..."      INSTALL_VC_HNC_EXTRA_FLAGS  extra controller flags (environment file)
#   --skip-systemd     INSTALL_VC_HNC_SKIP_SYSTEMD=true   binary and uninstall script only
#   --infiniband       INSTALL_VC_HNC_INFINIBAND=true     also the unit's drop-in for an InfiniBand
#                                                  host (the ibnetdiscover source: access to
#                                                  /dev/infiniband/umad*); kept and updated
#                                                  on later runs
#   --skip-start       INSTALL_VC_HNC_SKIP_START=true     enable but do not (re)start
#   --uninstall        INSTALL_VC_HNC_UNINSTALL=true      remove everything installed
#   --root DIR         INSTALL_ROOT                prefix for every path written (packaging);
#                                                  systemd is never touched with a prefix
#   --allow-http       INSTALL_VC_HNC_ALLOW_HTTP=true     accept an http:// --base-url (a mirror
#                                                  on a trusted network); the signature is
#                                                  checked all the same
#   --public-key FILE  INSTALL_VC_HNC_PUBLIC_KEY   verify SHA256SUMS with this PEM public key
#                                                  instead of the release key pinned here
#                                                  (a mirror that signs what it serves)
#
# SHA256SUMS must carry a valid signature (SHA256SUMS.sig, ECDSA P-256 over
# SHA-256, checked with openssl) by the release key pinned in this script;
# nothing is run or changed until it does and every downloaded file matched
# SHA256SUMS. A binary whose hash already matches is not downloaded again, and
# the service is only reloaded / restarted when something changed.
set -eu

NAME=vc-hypernode-controller-manager
ENV_VAR=VC_HNC_EXTRA_FLAGS
DEFAULT_BIN_DIR=/usr/local/bin
DEFAULT_KUBECONFIG=/etc/$NAME/kubeconfig
CONFIG_DIR=/etc/$NAME
SYSTEMD_DIR=/etc/systemd/system

# The public half of the project's release signing key (docs/deploy.md, "How a
# release is signed"). More than one key may be listed while a key is rotated:
# a signature by any of them is accepted.
RELEASE_PUBLIC_KEYS='-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEVKCsZ03oQFwRngIPTKXPXG5tsdQl
xa0BUP9P8q/akpefaQQb2903hMFdMNve9Z1slT1WZnZsW3x4RkV12+gXiQ==
-----END PUBLIC KEY-----'

info() { echo "[INFO]  $*"; }
warn() { echo "[WARN]  $*" >&2; }
fatal() {
    echo "[ERROR] $*" >&2
    exit 1
}

usage() {
    sed -n '2,/^set -eu/p' "$0" 2>/dev/null | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//' || true
}

# is_true NAME VALUE: true/false spelled as users write them in environments.
is_true() {
    case $2 in
    true | yes | 1) return 0 ;;
    false | no | 0 | '') return 1 ;;
    *) fatal "$1 must be true or false, got \"$2\"" ;;
    esac
}

VERSION=${INSTALL_VC_HNC_VERSION:-}
BASE_URL=${INSTALL_VC_HNC_BASE_URL:-}
BIN_FILE=${INSTALL_VC_HNC_BIN_FILE:-}
BIN_DIR=${INSTALL_VC_HNC_BIN_DIR:-$DEFAULT_BIN_DIR}
KUBECONFIG_PATH=${INSTALL_VC_HNC_KUBECONFIG:-$DEFAULT_KUBECONFIG}
EXTRA_FLAGS=${INSTALL_VC_HNC_EXTRA_FLAGS:-}
# Only an explicit setting (even empty) rewrites the flags of an existing install.
EXTRA_FLAGS_GIVEN=${INSTALL_VC_HNC_EXTRA_FLAGS+yes}
SKIP_SYSTEMD=${INSTALL_VC_HNC_SKIP_SYSTEMD:-false}
SKIP_START=${INSTALL_VC_HNC_SKIP_START:-false}
INFINIBAND=${INSTALL_VC_HNC_INFINIBAND:-false}
UNINSTALL=${INSTALL_VC_HNC_UNINSTALL:-false}
ALLOW_HTTP=${INSTALL_VC_HNC_ALLOW_HTTP:-false}
PUBLIC_KEY=${INSTALL_VC_HNC_PUBLIC_KEY:-}
ROOT=${INSTALL_ROOT:-}

while [ $# -gt 0 ]; do
    case $1 in
    --*=*)
        opt=${1%%=*}
        val=${1#*=}
        case $opt in
        --skip-systemd | --skip-start | --uninstall | --infiniband | --allow-http) fatal "option $opt takes no value (the INSTALL_VC_HNC_* variables take true/false)" ;;
        esac
        shift
        set -- "$opt" "$val" "$@"
        continue
        ;;
    esac
    case $1 in
    --version | --base-url | --bin-file | --install-dir | --kubeconfig | --flags | --root | --public-key)
        [ $# -ge 2 ] || fatal "option $1 needs a value (see --help)"
        case $1 in
        --public-key) PUBLIC_KEY=$2 ;;
        --version) VERSION=$2 ;;
        --base-url) BASE_URL=$2 ;;
        --bin-file) BIN_FILE=$2 ;;
        --install-dir) BIN_DIR=$2 ;;
        --kubeconfig) KUBECONFIG_PATH=$2 ;;
        --flags) EXTRA_FLAGS=$2 EXTRA_FLAGS_GIVEN=yes ;;
        --root) ROOT=$2 ;;
        esac
        shift 2
        ;;
    --skip-systemd) SKIP_SYSTEMD=true && shift ;;
    --skip-start) SKIP_START=true && shift ;;
    --infiniband) INFINIBAND=true && shift ;;
    --uninstall) UNINSTALL=true && shift ;;
    --allow-http) ALLOW_HTTP=true && shift ;;
    -h | --help)
        usage
        exit 0
        ;;
    *) fatal "unknown option \"$1\" (see --help)" ;;
    esac
done

# Paths end up unquoted in the systemd unit: keep them to characters that need
# no quoting there.
check_path() {
    case $2 in
    /*) ;;
    *) fatal "$1 must be an absolute path, got \"$2\"" ;;
    esac
    case $2 in
    *[!A-Za-z0-9._/@+-]*) fatal "$1 may only contain letters, digits and . _ / @ + -, got \"$2\"" ;;
    esac
}
check_path "install dir" "$BIN_DIR"
check_path "kubeconfig" "$KUBECONFIG_PATH"
[ -z "$ROOT" ] || check_path "root prefix" "$ROOT"
ROOT=${ROOT%/}
case $EXTRA_FLAGS in
*'"'* | *\\* | *"
"*) fatal "extra flags cannot contain quotes, backslashes or newlines (systemd splits them on whitespace)" ;;
esac

BIN_PATH=$ROOT$BIN_DIR/$NAME
UNINSTALL_PATH=$ROOT$BIN_DIR/$NAME-uninstall.sh
# kubectl runs kubectl-<name> from PATH as `kubectl <name>`; the executable
# becomes the plugin when started under this name.
PLUGIN_PATH=$ROOT$BIN_DIR/kubectl-hypernode
UNIT_PATH=$ROOT$SYSTEMD_DIR/$NAME.service
DROPIN_DIR=$ROOT$SYSTEMD_DIR/$NAME.service.d
DROPIN_PATH=$DROPIN_DIR/infiniband.conf
ENV_PATH=$ROOT$CONFIG_DIR/env

# systemd is managed only on the live system, never inside a staging prefix.
systemd_running() {
    [ -z "$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1
}

if is_true INSTALL_VC_HNC_UNINSTALL "$UNINSTALL"; then
    [ -f "$UNINSTALL_PATH" ] || fatal "nothing to uninstall: $UNINSTALL_PATH does not exist (was another --install-dir or --root used?)"
    INSTALL_ROOT=$ROOT exec sh "$UNINSTALL_PATH"
fi

if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    fatal "run as root to install into $BIN_DIR (or pass --root DIR to stage the files in DIR)"
fi

MACHINE=$(uname -m)
case $MACHINE in
x86_64 | amd64) ARCH=amd64 ;;
aarch64 | arm64) ARCH=arm64 ;;
*) fatal "unsupported machine architecture $MACHINE: releases exist for amd64 (x86_64) and arm64 (aarch64) only" ;;
esac
# The executables link glibc; on musl (Alpine and the like) they cannot start.
if ls /lib/ld-musl-* >/dev/null 2>&1 || { command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; }; then
    fatal "this system uses the musl C library; the release executables need glibc (run the container image, or install on a glibc distribution)"
fi
ASSET=$NAME-linux-$ARCH
UNIT_ASSET=$NAME.service
DROPIN_ASSET=$NAME-infiniband.conf

if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
    sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
    fatal "neither sha256sum nor shasum is installed; one is needed to verify the download"
fi

if [ -n "$BIN_FILE" ]; then
    [ -f "$BIN_FILE" ] || fatal "--bin-file $BIN_FILE does not exist"
    SOURCE_DIR=$(cd "$(dirname "$BIN_FILE")" && pwd)
    SOURCE="local file $BIN_FILE"
    # SHA256SUMS beside the file lists it under its own name.
    ASSET=$(basename "$BIN_FILE")
    fetch() { # fetch ASSET DEST
        [ -f "$SOURCE_DIR/$1" ] || fatal "$SOURCE_DIR/$1 not found (it must sit beside --bin-file; or pass --skip-systemd)"
        cp "$SOURCE_DIR/$1" "$2"
    }
else
    [ -n "$BASE_URL" ] || fatal "no release source: set INSTALL_VC_HNC_BASE_URL or --base-url (or install a local file with --bin-file)"
    # Only https unless told otherwise; curl is held to it across redirects too.
    PROTOCOLS='=https'
    case $BASE_URL in
    https://*) ;;
    http://*)
        is_true INSTALL_VC_HNC_ALLOW_HTTP "$ALLOW_HTTP" ||
            fatal "refusing the http:// release URL $BASE_URL: anyone on the way could read or replace what it serves. Use https://, or pass --allow-http (INSTALL_VC_HNC_ALLOW_HTTP=true) for a mirror on a network you trust (the signature is checked either way)"
        PROTOCOLS='=http,https'
        ;;
    *) fatal "the release URL must start with https:// (or http:// with --allow-http), got \"$BASE_URL\"" ;;
    esac
    RELEASE_URL=${BASE_URL%/}/${VERSION:-latest}
    SOURCE=$RELEASE_URL
    if command -v curl >/dev/null 2>&1; then
        download() { curl -fsSL --retry 3 --proto "$PROTOCOLS" --proto-redir "$PROTOCOLS" -o "$2" "$1"; }
    elif command -v wget >/dev/null 2>&1; then
        download() { wget -q -O "$2" "$1"; }
    else
        fatal "neither curl nor wget is installed; install one, or use --bin-file"
    fi
    fetch() { # fetch ASSET DEST
        download "$RELEASE_URL/$1" "$2" || fatal "could not download $RELEASE_URL/$1 (check --base-url and --version)"
    }
fi

TMP_DIR=$(mktemp -d)
BIN_TMP=
cleanup() {
    rm -rf "$TMP_DIR"
    [ -z "$BIN_TMP" ] || rm -f "$BIN_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# verify_signature: SHA256SUMS was signed with a pinned release key (or the
# --public-key one), checked before anything it lists is used or run.
verify_signature() {
    command -v openssl >/dev/null 2>&1 ||
        fatal "openssl is not installed; it is needed to verify the release's signature (install the openssl package)"
    mkdir "$TMP_DIR/keys"
    if [ -n "$PUBLIC_KEY" ]; then
        [ -f "$PUBLIC_KEY" ] || fatal "--public-key $PUBLIC_KEY does not exist"
        cp "$PUBLIC_KEY" "$TMP_DIR/keys/1.pem"
        KEYS_USED="the public key $PUBLIC_KEY"
    else
        printf '%s\n' "$RELEASE_PUBLIC_KEYS" |
            awk -v dir="$TMP_DIR/keys" '/-BEGIN PUBLIC KEY-/ { n++ } n { print > (dir "/" n ".pem") }'
        KEYS_USED="the release key pinned in install.sh"
    fi
    for key in "$TMP_DIR"/keys/*.pem; do
        if openssl dgst -sha256 -verify "$key" -signature "$TMP_DIR/SHA256SUMS.sig" "$SUMS" >/dev/null 2>&1; then
            info "SHA256SUMS from $SOURCE is signed by $KEYS_USED"
            return 0
        fi
    done
    fatal "the signature of SHA256SUMS from $SOURCE does not verify with $KEYS_USED: the release was altered or signed with another key. Nothing was run, installed or changed."
}

# SHA256SUMS and its signature are mandatory for downloads; beside a local
# file they are used when present (a build directory has neither).
SUMS=$TMP_DIR/SHA256SUMS
if [ -n "$BIN_FILE" ] && [ ! -f "$SOURCE_DIR/SHA256SUMS" ]; then
    warn "no SHA256SUMS beside $BIN_FILE: installing it unverified"
    : >"$SUMS"
else
    fetch SHA256SUMS "$SUMS"
    [ -s "$SUMS" ] || fatal "SHA256SUMS from $SOURCE is empty"
    if [ -n "$BIN_FILE" ] && [ ! -f "$SOURCE_DIR/SHA256SUMS.sig" ]; then
        fatal "SHA256SUMS beside $BIN_FILE is not signed (no SHA256SUMS.sig): copy the release's SHA256SUMS.sig beside it, or remove SHA256SUMS to install your own build unverified"
    fi
    fetch SHA256SUMS.sig "$TMP_DIR/SHA256SUMS.sig"
    verify_signature
fi

# expected_hash ASSET FILE: the hash SHA256SUMS lists, or (only for a local
# file without SHA256SUMS, where SUMS is empty) the file's own.
expected_hash() {
    listed=$(awk -v f="$1" '$2 == f || $2 == "*" f { print $1; exit }' "$SUMS")
    if [ -z "$listed" ]; then
        [ ! -s "$SUMS" ] || fatal "SHA256SUMS from $SOURCE has no entry for $1"
        listed=$(sha256 "$2")
    fi
    echo "$listed"
}

# verify ASSET FILE: fail closed before anything installed is touched.
verify() {
    want=$(expected_hash "$1" "$2")
    got=$(sha256 "$2")
    [ "$want" = "$got" ] || fatal "checksum mismatch for $1 from $SOURCE: SHA256SUMS says $want, got $got. The file is corrupt or was tampered with; nothing was installed or changed."
}

CHANGED=false
UNIT_CHANGED=false

# 1. Fetch and verify everything into temporary files.
WANT_BIN=$(expected_hash "$ASSET" "$BIN_FILE")
if [ -f "$BIN_PATH" ] && [ "$(sha256 "$BIN_PATH")" = "$WANT_BIN" ]; then
    info "$BIN_PATH is already the wanted build (sha256 $WANT_BIN)"
else
    mkdir -p "$ROOT$BIN_DIR"
    # The temporary file sits in the target directory so the final mv is atomic.
    BIN_TMP=$(mktemp "$ROOT$BIN_DIR/.$NAME.XXXXXX")
    info "fetching $ASSET from $SOURCE"
    fetch "$ASSET" "$BIN_TMP"
    verify "$ASSET" "$BIN_TMP"
    chmod 755 "$BIN_TMP"
    VERSION_OUT=$("$BIN_TMP" --version 2>&1) || fatal "the downloaded $ASSET does not run on this machine: $VERSION_OUT"
    if [ -n "$VERSION" ] && [ "$VERSION" != latest ]; then
        # Release tags carry a leading v (v0.1.0); the executable reports the bare version.
        echo "$VERSION_OUT" | grep -qxF "Version: ${VERSION#v}" ||
            fatal "the downloaded $ASSET is not version ${VERSION#v}; it reports: $(echo "$VERSION_OUT" | sed -n 2p)"
    fi
fi

if ! is_true INSTALL_VC_HNC_SKIP_SYSTEMD "$SKIP_SYSTEMD"; then
    fetch "$UNIT_ASSET" "$TMP_DIR/unit"
    verify "$UNIT_ASSET" "$TMP_DIR/unit"
    sed -e "s|^ExecStart=$DEFAULT_BIN_DIR/$NAME |ExecStart=$BIN_DIR/$NAME |" \
        -e "s|^LoadCredential=kubeconfig:$DEFAULT_KUBECONFIG\$|LoadCredential=kubeconfig:$KUBECONFIG_PATH|" \
        "$TMP_DIR/unit" >"$TMP_DIR/$NAME.service"
    grep -q "^ExecStart=$BIN_DIR/$NAME " "$TMP_DIR/$NAME.service" ||
        fatal "$UNIT_ASSET from $SOURCE has no ExecStart line this installer understands"
    # Once installed, the drop-in is kept, and updated with the unit, on every later run.
    if is_true INSTALL_VC_HNC_INFINIBAND "$INFINIBAND" || [ -f "$DROPIN_PATH" ]; then
        fetch "$DROPIN_ASSET" "$TMP_DIR/infiniband.conf"
        verify "$DROPIN_ASSET" "$TMP_DIR/infiniband.conf"
    fi
    if [ -n "$EXTRA_FLAGS_GIVEN" ] || [ ! -f "$ENV_PATH" ]; then
        {
            echo "# Written by install.sh. Extra flags for $NAME, appended after the unit's own"
            echo "# flags (the last occurrence of a flag wins). Re-run install.sh --flags \"...\" to change."
            echo "$ENV_VAR=\"$EXTRA_FLAGS\""
        } >"$TMP_DIR/env"
    fi
fi

cat >"$TMP_DIR/uninstall.sh" <<EOF
#!/bin/sh
# Removes $NAME as installed by install.sh. INSTALL_ROOT selects
# the staging prefix it was installed into.
set -eu
ROOT=\${INSTALL_ROOT:-}
if [ -z "\$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now $NAME.service >/dev/null 2>&1 || true
fi
rm -f "\$ROOT$SYSTEMD_DIR/$NAME.service" "\$ROOT$SYSTEMD_DIR/$NAME.service.d/infiniband.conf" "\$ROOT$CONFIG_DIR/env" "\$ROOT$BIN_DIR/$NAME" "\$ROOT$BIN_DIR/kubectl-hypernode"
rmdir "\$ROOT$SYSTEMD_DIR/$NAME.service.d" 2>/dev/null || true
if [ -d "\$ROOT$CONFIG_DIR" ] && ! rmdir "\$ROOT$CONFIG_DIR" 2>/dev/null; then
    echo "[INFO]  kept \$ROOT$CONFIG_DIR: it still holds your files (such as the kubeconfig)"
fi
if [ -z "\$ROOT" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemctl daemon-reload
fi
rm -f "\$ROOT$BIN_DIR/$NAME-uninstall.sh"
echo "[INFO]  $NAME uninstalled"
EOF

# 2. Everything verified: install what differs.

# install_file SRC DEST MODE: replace DEST atomically when its content differs.
install_file() {
    if [ -f "$2" ] && cmp -s "$1" "$2"; then
        return 1
    fi
    mkdir -p "$(dirname "$2")"
    tmp=$(mktemp "$(dirname "$2")/.$NAME.XXXXXX")
    cp "$1" "$tmp"
    chmod "$3" "$tmp"
    mv -f "$tmp" "$2"
    info "wrote $2"
}

if [ -n "$BIN_TMP" ]; then
    mv -f "$BIN_TMP" "$BIN_PATH"
    BIN_TMP=
    CHANGED=true
    info "installed $BIN_PATH:"
    echo "$VERSION_OUT" | sed 's/^/        /'
fi
install_file "$TMP_DIR/uninstall.sh" "$UNINSTALL_PATH" 755 || true
if [ ! -L "$PLUGIN_PATH" ]; then
    ln -s "$NAME" "$PLUGIN_PATH"
    info "linked $PLUGIN_PATH: the kubectl plugin (kubectl hypernode)"
fi

if is_true INSTALL_VC_HNC_SKIP_SYSTEMD "$SKIP_SYSTEMD"; then
    info "skipping the systemd unit (--skip-systemd)"
    exit 0
fi
if install_file "$TMP_DIR/$NAME.service" "$UNIT_PATH" 644; then UNIT_CHANGED=true; fi
if [ -f "$TMP_DIR/infiniband.conf" ] && install_file "$TMP_DIR/infiniband.conf" "$DROPIN_PATH" 644; then UNIT_CHANGED=true; fi
if [ -f "$TMP_DIR/env" ] && install_file "$TMP_DIR/env" "$ENV_PATH" 600; then UNIT_CHANGED=true; fi
[ "$UNIT_CHANGED" = false ] || CHANGED=true

if [ ! -f "$ROOT$KUBECONFIG_PATH" ]; then
    warn "no kubeconfig at $ROOT$KUBECONFIG_PATH: the service cannot start until one is there"
fi

if ! systemd_running; then
    if [ -n "$ROOT" ]; then
        info "files staged under $ROOT; systemd was not touched"
    else
        info "systemd is not running here; start $BIN_PATH yourself"
    fi
    exit 0
fi
if [ "$CHANGED" = false ]; then
    info "nothing changed; the service was left as it is"
    exit 0
fi
[ "$UNIT_CHANGED" = false ] || systemctl daemon-reload
systemctl enable "$NAME.service" >/dev/null 2>&1 || fatal "systemctl enable $NAME.service failed"
if is_true INSTALL_VC_HNC_SKIP_START "$SKIP_START"; then
    info "enabled $NAME.service; not starting it (--skip-start)"
elif [ ! -f "$KUBECONFIG_PATH" ]; then
    info "enabled $NAME.service; start it once $KUBECONFIG_PATH exists: systemctl start $NAME"
else
    systemctl restart "$NAME.service" || fatal "systemctl restart $NAME.service failed; see: journalctl -u $NAME"
    info "restarted $NAME.service"
fi
