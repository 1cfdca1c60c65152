/* SPDX-License-Identifier: GPL-2.0 */
/* VM names from cgroup v2 paths, as libvirt and systemd place VM processes; /proc/PID/cgroup;
 * a path cut to its first components. */
#ifndef PWZ_CGROUPNAME_H
#define PWZ_CGROUPNAME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The cgroup v2 path of a process from the text of /proc/PID/cgroup (len bytes, lines
 * "<id>:<controllers>:<path>"): the path of the line "0::<path>", the unified hierarchy,
 * whether the host is v2 only (that line alone) or hybrid (v1 lines beside it). The kernel's
 * mark of a removed cgroup, a trailing " (deleted)", is left out. Copies it to out (truncated
 * to outlen - 1 bytes, NUL-terminated) and returns true; false (out untouched) when the text
 * has no such line or its path does not start with '/' or holds a NUL byte (a v1-only host,
 * garbage).
 */
bool cgroup_v2_path(const char *text, size_t len, char *out, size_t outlen);

/*
 * The length of the start of cgroup v2 path (NUL-terminated, starting with '/') that holds
 * its first depth components: "/system.slice/foo.service/x" at depth 2 is
 * "/system.slice/foo.service" (25 bytes), at depth 1 "/system.slice"; a path of depth
 * components or fewer is whole; the root "/", and any path at depth 0, is "/" (1). A path
 * that does not start with '/' is whole (strlen()). Reads path only.
 */
size_t cgroup_path_prefix(const char *path, unsigned int depth);

/*
 * The name of the VM (or container) a cgroup v2 path places its process in, as the host
 * names it. The path's first component is its top slice; slices below it (components ending
 * in ".slice": "machine-custom.slice", "system-firecracker.slice") are passed; the next
 * component is the unit, and whatever follows it (libvirt's "libvirt/emulator",
 * "libvirt/vcpu0") does not matter:
 *   - a scope ("<x>.scope") under machine.slice: a machine (systemd-machined registers each
 *     as "machine-<name>.scope"): its name is x without the "machine-" prefix when it has
 *     one; a libvirt QEMU domain's machine name "qemu-<id>-<name>" gives <name> (the domain
 *     id dropped); any other ("lxc-<id>-<name>" of libvirt's LXC driver, "foo") stays whole;
 *   - a service ("<x>.service") under system.slice or machine.slice: a VMM run as a systemd
 *     unit ("firecracker@vm7.service"): its name is x;
 *   - anything else names no VM: a login session or a user's units (user.slice), a scope
 *     under system.slice, the root, init.scope, other top slices, a path without a unit.
 * systemd's escapes "\xNN" (two hex digits) are read as the byte they stand for ("\x2d" '-',
 * "\x5f" '_'), except control characters (below 0x20, and 0x7f), which stay as written.
 * Copies the name to out (truncated to outlen - 1 bytes, NUL-terminated) and returns true;
 * false (out untouched) when the path names no VM, or the name is empty.
 */
bool cgroup_vm_name(const char *cgroup_path, char *out, size_t outlen);

#endif /* PWZ_CGROUPNAME_H */
