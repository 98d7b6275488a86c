/*
 * insn_count: a QEMU TCG plugin (plugin API version 1, QEMU 7.2 as Debian bookworm ships
 * it) that counts the guest instructions executed, every thread together, and reports the
 * running count whenever the guest asks for it with a marker system call.
 *
 *     qemu-aarch64 -plugin ./insn_count.so,outfile=/tmp/counts python3 ...
 *
 * Each translated block adds its number of instructions to the counter of the vCPU (guest
 * thread) that runs it when it starts executing. A marker is the system call number
 * MARKER_NR with MARKER_MAGIC as its first argument (the guest gets ENOSYS back; from
 * Python: ctypes.CDLL(None).syscall(MARKER_NR, MARKER_MAGIC, label)); it appends the line
 *
 *     mark <label> <all threads> <this thread>
 *
 * to outfile, and the end of the process appends "exit <all threads> <thread 0>". Only
 * the process QEMU started writes (a forked child, which inherits the counts, does not:
 * like valgrind's --trace-children=no).
 *
 * Built by benchmarks/arm/build-plugin against Debian's qemu-plugin.h (not kept here).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARKER_NR 0xC0FFEE
#define MARKER_MAGIC 0x19C0FFEEu
#define MAX_VCPUS 1024      /* guest threads alive at once (vCPU indexes are reused) */

/* one counter per vCPU, each on its own cache line: threads run in parallel */
struct counter {
    uint64_t n;
    char pad[56];
};
static struct counter counts[MAX_VCPUS + 1];   /* the last one: any index beyond */
static int out_fd = 2;
static pid_t started;       /* the process QEMU started */

static inline struct counter *slot(unsigned int vcpu)
{
    return &counts[vcpu < MAX_VCPUS ? vcpu : MAX_VCPUS];
}

static uint64_t total(void)
{
    uint64_t sum = 0;
    for (int i = 0; i <= MAX_VCPUS; i++) {
        sum += __atomic_load_n(&counts[i].n, __ATOMIC_RELAXED);
    }
    return sum;
}

static void put(const char *line, int len)
{
    /* one write per line, appended: a forked child's lines do not interleave */
    if (write(out_fd, line, len) != len) {
        /* nothing to do: the reader finds the line missing */
    }
}

static void tb_exec(unsigned int vcpu, void *udata)
{
    __atomic_fetch_add(&slot(vcpu)->n, (uint64_t)(uintptr_t)udata, __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)n);
}

static void syscall_cb(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                       uint64_t a7, uint64_t a8)
{
    if (num != MARKER_NR || a1 != MARKER_MAGIC || getpid() != started) {
        return;
    }
    char line[160];
    int len = snprintf(line, sizeof line, "mark %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", a2,
                       total(), slot(vcpu)->n);
    put(line, len);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    if (getpid() != started) {
        return;
    }
    char line[160];
    int len = snprintf(line, sizeof line, "exit %" PRIu64 " %" PRIu64 "\n", total(),
                       counts[0].n);
    put(line, len);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    started = getpid();
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "outfile=", 8) == 0) {
            out_fd = open(argv[i] + 8, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (out_fd < 0) {
                fprintf(stderr, "insn_count: cannot open %s\n", argv[i] + 8);
                return -1;
            }
        } else {
            fprintf(stderr, "insn_count: unknown argument %s (outfile=PATH)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_vcpu_syscall_cb(id, syscall_cb);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
