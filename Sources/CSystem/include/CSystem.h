// CSystem: Linux calls that Swift's Glibc module does not export. No logic lives here.
// Why a shim: fallocate() and syncfs() are declared only under _GNU_SOURCE, which must not leak into module
// headers (glibc types would then differ from SwiftGlibc's), so it is wrapped in a .c file. zlib's crc32
// is wrapped here too, so that no other module needs zlib's headers.
#ifndef EDDY_CSYSTEM_H
#define EDDY_CSYSTEM_H
/// fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length); 0 or -1 with errno.
int eddy_punch_hole(int fd, long long offset, long long length);
/// syncfs(fd): writes back every dirty page of the file system holding fd; 0 or -1 with errno.
int eddy_syncfs(int fd);
/// zlib's crc32_z(crc, buf, len): the CRC-32 of buf continued from crc (0 to start).
unsigned long eddy_crc32(unsigned long crc, const void *buf, unsigned long len);
#endif
