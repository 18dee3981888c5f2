/* mpitestconf.h for MPICH's own test/mpi tests built outside MPICH's test configure
 * (integrations/mpich/tests/CMakeLists.txt compiles a few of them with mpicc): what that
 * configure finds on Debian 12 / x86_64 for the headers and functions they use. */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define MTEST_MPI_VERSION 4
#define MTEST_MPI_SUBVERSION 0
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
