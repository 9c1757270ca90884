#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>
#include <zlib.h>
#include "CSystem.h"

int eddy_punch_hole(int fd, long long offset, long long length) {
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)length);
}

int eddy_syncfs(int fd) {
    return syncfs(fd);
}

unsigned long eddy_crc32(unsigned long crc, const void *buf, unsigned long len) {
    return crc32_z(crc, (const Bytef *)buf, (z_size_t)len);
}
