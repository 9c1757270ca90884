// CSystem: Linux calls that Swift's Glibc module does not export. No logic lives here.
// Why a shim: fallocate() and syncfs() are declared only under _GNU_SOURCE, which must not leak into module
// headers (glibc types would then differ from SwiftGlibc's), so it is wrapped in a .c file.
#ifndef EDDY_CSYSTEM_H
#define EDDY_CSYSTEM_H
/// fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length); 0 or -1 with errno.
int eddy_punch_hole(int fd, long long offset, long long length);
/// syncfs(fd): writes back every dirty page of the file system holding fd; 0 or -1 with errno.
int eddy_syncfs(int fd);
#endif
