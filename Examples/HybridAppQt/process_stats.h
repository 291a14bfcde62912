// Descriptors, pipes, sockets and memory of this process, from /proc.
#pragma once

struct ProcessStats {
    int descriptors = 0, pipes = 0, sockets = 0;
    long residentKib = -1, peakResidentKib = -1;

    static ProcessStats now();
};
