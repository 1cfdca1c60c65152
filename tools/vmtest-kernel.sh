# SPDX-License-Identifier: GPL-2.0
# tools/vmtest's kernel: which Debian kernel package to boot, fetched once with apt and cached.
# Sourced by tools/vmtest (bash); defines vmtest_kernel, which sets $kdir.
#
# - vmtest_kernel SPEC: SPEC is a Debian release (bullseye, bookworm, trixie; or its number 11,
#   12, 13), a package name (linux-image-6.12.57+deb13-amd64), or "" for the host's own release
#   (the package linux-image-amd64 depends on, from the host's apt lists).
# - A release is resolved through a private apt configuration in $cache/apt/<release>/: its own
#   sources (the release and its security suite, deb.debian.org, the host's Debian keyring),
#   lists, status and package cache; the host's sources, lists and state are never changed.
#   The release's lists are read once (apt-get update) and reused; when they cannot be read
#   (offline) the newest kernel cached for that release is booted.
# - A package is unpacked on the host and only what the boot needs is kept in
#   $cache/<package>/<modules>/: vmlinuz, config, the modules of $modules_wanted and their
#   dependencies (from each module's modinfo) decompressed to plain .ko (trixie ships .ko.xz),
#   their load order, and the kernel version. Releases differ in layout: /lib/modules
#   (bullseye, bookworm) or /usr/lib/modules (trixie, merged /usr), compressed modules or not,
#   virtio built in or a module (what modules.builtin lists is skipped).
# Needs: cache, deadline, verbose, modules_wanted, die (from tools/vmtest).

# Debian release names the harness knows, by name and number.
vmtest_release() # spec: prints the release name, or nothing when spec is not a release
{
	case "$1" in
	bullseye | 11) echo bullseye ;;
	bookworm | 12) echo bookworm ;;
	trixie | 13) echo trixie ;;
	esac
}

vk_norm() { echo "${1//-/_}"; }

# Runs apt-get (or apt-cache) with the private configuration of a release.
vk_apt() # release tool args...
{
	local rel=$1 tool=$2
	shift 2
	APT_CONFIG=$cache/apt/$rel/apt.conf "$tool" "$@"
}

# Writes the private apt configuration of a release (idempotent).
vk_apt_setup() # release
{
	local rel=$1 d=$cache/apt/$1 keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$d/lists/partial" "$d/archives/partial" "$d/state" "$d/etc/preferences.d" \
		"$d/etc/apt.conf.d" || return 1
	: >>"$d/status"
	[[ -r $keyring ]] || die 125 "no Debian keyring at $keyring (apt-get install debian-archive-keyring)"
	cat >"$d/sources.list.new" <<-EOF
		deb [signed-by=$keyring] http://deb.debian.org/debian $rel main
		deb [signed-by=$keyring] http://deb.debian.org/debian-security $rel-security main
	EOF
	mv "$d/sources.list.new" "$d/sources.list"
	# Only this release's lists, state and cache; the host's apt.conf.d (proxies, index
	# options) still applies.
	cat >"$d/apt.conf.new" <<-EOF
		Dir::State "$d/state";
		Dir::State::Lists "$d/lists";
		Dir::State::status "$d/status";
		Dir::Cache "$d";
		Dir::Cache::archives "$d/archives";
		Dir::Cache::pkgcache "";
		Dir::Cache::srcpkgcache "";
		Dir::Etc::SourceList "$d/sources.list";
		Dir::Etc::SourceParts "$d/etc/sources.list.d";
		Dir::Etc::Preferences "$d/etc/preferences";
		Dir::Etc::PreferencesParts "$d/etc/preferences.d";
		APT::Architecture "amd64";
		APT::Architectures { "amd64"; };
		Acquire::Languages "none";
	EOF
	mv "$d/apt.conf.new" "$d/apt.conf"
	mkdir -p "$d/etc/sources.list.d"
}

vk_left() { echo $((deadline - SECONDS > 1 ? deadline - SECONDS : 1)); }

# The versioned kernel package of a release (what its linux-image-amd64 depends on).
vk_release_pkg() # release
{
	local rel=$1 d=$cache/apt/$1
	vk_apt_setup "$rel" || return 1
	if ! compgen -G "$d/lists/*_Packages*" >/dev/null; then
		((verbose)) && echo "vmtest: reading the $rel apt lists into $d" >&2
		timeout "$(vk_left)" env APT_CONFIG="$d/apt.conf" apt-get update -qq \
			>"$d/update.log" 2>&1 || return 1
	fi
	vk_apt "$rel" apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1
}

# The package the host's own apt lists name for linux-image-amd64.
vk_host_pkg()
{
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1
}

# One cache entry per kernel package and module list: $cache/<package>/<modules joined by +>/.
vk_mkey() { vk_norm "$modules_wanted" | tr -s ' ' '+'; }

# The newest complete cached kernel package matching a glob, other than $2 ("" none).
vk_newest_cached() # glob [except]
{
	local d n best="" mkey
	mkey=$(vk_mkey)
	for d in "$cache"/$1/"$mkey"; do
		[[ -f $d/load-order ]] || continue
		n=$(basename "$(dirname "$d")")
		[[ $n == "${2:-}" ]] && continue
		[[ -z $best || $d -nt $cache/$best/$mkey ]] && best=$n
	done
	echo "$best"
}

# The glob of a release's kernel packages in the cache (Debian's version naming).
vk_release_glob() # release
{
	case "$1" in
	bullseye) echo 'linux-image-5.10.*' ;;
	bookworm) echo 'linux-image-6.1.*' ;;
	trixie) echo 'linux-image-6.12.*' ;;
	esac
}

# A module file with or without its compression suffix, decompressed to out.
vk_plain_module() # file out
{
	case "$1" in
	*.xz) xz -dc "$1" >"$2" ;;
	*.zst) zstd -qdc "$1" >"$2" ;;
	*.gz) gzip -dc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# Unpacks pkg (downloaded with the given apt wrapper) and keeps the boot's part in dir.
vk_fetch() # pkg dir release-or-empty
{
	local pkg=$1 dir=$2 rel=$3 tmp kver m n mdir ko dep deps
	local -A path=() done_=() builtin=()
	local order=()
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	# shellcheck disable=SC2064 # expanded now: the locals are gone when the subshell exits
	trap "rm -rf $(printf '%q %q' "$tmp" "$dir.new")" EXIT	# runs in a subshell: its own trap
	if [[ -n $rel ]]; then
		(cd "$tmp" && timeout "$(vk_left)" env APT_CONFIG="$cache/apt/$rel/apt.conf" \
			apt-get download "$pkg" >"$tmp/apt.log" 2>&1)
	else
		(cd "$tmp" && timeout "$(vk_left)" apt-get download "$pkg" >"$tmp/apt.log" 2>&1)
	fi || {
		cat "$tmp/apt.log" >&2
		die 125 "cannot download $pkg${rel:+ from $rel} (apt-get update first?)"
	}
	dpkg-deb -x "$tmp"/*.deb "$tmp/x" || die 125 "cannot unpack $pkg"
	for mdir in "$tmp"/x/lib/modules/*/ "$tmp"/x/usr/lib/modules/*/; do
		[[ -d $mdir ]] || continue
		kver=$(basename "$mdir")
		break
	done
	[[ -n ${kver:-} ]] || die 125 "$pkg: no modules directory (lib/modules or usr/lib/modules) in the package"
	mdir=${mdir%/}
	local vmlinuz="" config=""
	for m in "$tmp/x/boot/vmlinuz-$kver" "$mdir/vmlinuz"; do
		[[ -f $m ]] && { vmlinuz=$m; break; }
	done
	for m in "$tmp/x/boot/config-$kver" "$mdir/config"; do
		[[ -f $m ]] && { config=$m; break; }
	done
	[[ -n $vmlinuz ]] || die 125 "$pkg: no kernel in the package (looked for boot/vmlinuz-$kver and ${mdir#"$tmp/x/"}/vmlinuz)"
	# Every module file, by normalised name, whatever its compression.
	while read -r ko; do
		n=$(basename "$ko")
		n=${n%.xz} n=${n%.zst} n=${n%.gz}
		path[$(vk_norm "${n%.ko}")]=$ko
	done < <(find "$mdir/kernel" -name '*.ko*')
	if [[ -f $mdir/modules.builtin ]]; then
		while read -r ko; do
			n=$(basename "$ko" .ko)
			builtin[$(vk_norm "$n")]=1
		done <"$mdir/modules.builtin"
	fi
	mkdir -p "$tmp/plain"
	resolve() # name: appends it to order after its dependencies
	{
		local n
		n=$(vk_norm "$1")
		[[ -n ${done_[$n]:-} || -n ${builtin[$n]:-} ]] && return 0
		done_[$n]=1
		[[ -n ${path[$n]:-} ]] || die 125 "kernel module $1 is not in $pkg (neither a module nor built in)"
		vk_plain_module "${path[$n]}" "$tmp/plain/$n.ko" || die 125 "cannot decompress ${path[$n]##*/}"
		deps=$(strings -a "$tmp/plain/$n.ko" | sed -n 's/^depends=//p' | head -1)
		for dep in ${deps//,/ }; do
			resolve "$dep"
		done
		order+=("$n")
	}
	for m in $modules_wanted; do
		resolve "$m"
	done
	rm -rf "$dir.new" && mkdir -p "$dir.new/modules"	# load-order last: marks it complete
	cp "$vmlinuz" "$dir.new/vmlinuz"
	[[ -n $config ]] && cp "$config" "$dir.new/config"
	for m in "${order[@]}"; do
		cp "$tmp/plain/$m.ko" "$dir.new/modules/$m.ko"
	done
	echo "$kver" >"$dir.new/version"
	printf '%s\n' "${order[@]}" >"$dir.new/load-order"
	rm -rf "$tmp" "$dir"
	mv "$dir.new" "$dir"
}

# Sets kdir to the cached kernel for spec (fetching it first when needed).
vmtest_kernel() # spec
{
	local spec=$1 rel pkg mkey old glob=''
	mkey=$(vk_mkey)
	rel=$(vmtest_release "$spec")
	exec 9>"$cache/.lock"
	flock 9
	if [[ -n $rel ]]; then
		glob=$(vk_release_glob "$rel")
		pkg=$(vk_release_pkg "$rel") || pkg=""
		if [[ -z $pkg ]]; then
			pkg=$(vk_newest_cached "$glob")
			[[ -n $pkg ]] || die 125 "cannot read the $rel apt lists (see $cache/apt/$rel/update.log) and no $rel kernel is cached"
			echo "vmtest: $rel lists unreadable: using the cached $pkg" >&2
		fi
	elif [[ -n $spec ]]; then
		[[ $spec == linux-image-* ]] ||
			die 2 "--kernel '$spec': a Debian release (bullseye, bookworm, trixie, or 11, 12, 13) or a linux-image-* package"
		pkg=$spec
		# a versioned name: its release from Debian's version suffix, for apt to find it
		case "$pkg" in
		linux-image-5.10.*) rel=bullseye ;;
		*+deb13-* | linux-image-6.12.*) rel=trixie ;;
		esac
		[[ -n $rel ]] && vk_apt_setup "$rel" && { vk_release_pkg "$rel" >/dev/null || true; }
	else
		pkg=$(vk_host_pkg)
		glob='linux-image-*'
		if [[ -z $pkg ]]; then
			# No apt lists: use the newest kernel already cached, else read the lists once.
			pkg=$(vk_newest_cached "$glob")
			if [[ -z $pkg && $(id -u) -eq 0 ]]; then
				timeout "$(vk_left)" apt-get update -qq >/dev/null 2>&1 || true
				pkg=$(vk_host_pkg)
			fi
			[[ -n $pkg ]] || die 125 "cannot tell which kernel to fetch (apt-get update, or --kernel)"
		fi
	fi
	kdir=$cache/$pkg/$mkey
	if [[ ! -f $kdir/load-order ]]; then
		((verbose)) && echo "vmtest: fetching $pkg${rel:+ ($rel)} into $cache" >&2
		if ! (vk_fetch "$pkg" "$kdir" "$rel"); then
			# Offline with a newer kernel announced: fall back to one already cached.
			old=""
			[[ -n $glob ]] && old=$(vk_newest_cached "$glob" "$pkg")
			[[ -n $old ]] || exit 125
			echo "vmtest: using the cached $old instead" >&2
			kdir=$cache/$old/$mkey
		fi
	fi
	flock -u 9
}
