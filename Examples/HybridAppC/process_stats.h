/* This process's open descriptors and memory, read from /proc (the exit line's numbers). */
#ifndef HYBRID_APP_PROCESS_STATS_H
#define HYBRID_APP_PROCESS_STATS_H

struct process_stats {
    int descriptors;
    /* Of those, the pipes (response bodies still open at one end or the other). */
    int pipes;
    /* Of those, the sockets (origin connections, WebKit's IPC). */
    int sockets;
    long resident_kib;
    long peak_resident_kib;
};

struct process_stats process_stats_now(void);

#endif
