! The MPI interface a test program uses, chosen when it is compiled: HOPMAP_F08
! (use mpi_f08), HOPMAP_USE_MPI (use mpi) or HOPMAP_MPIF_H (include 'mpif.h').
! COMM_T and REQUEST_T are the handle types of that interface.
#if defined(HOPMAP_F08)
#define USE_MPI use mpi_f08
#define INCLUDE_MPIF_H
#define COMM_T type(MPI_Comm)
#define REQUEST_T type(MPI_Request)
#elif defined(HOPMAP_USE_MPI)
#define USE_MPI use mpi
#define INCLUDE_MPIF_H
#define COMM_T integer
#define REQUEST_T integer
#else
#define USE_MPI
#define INCLUDE_MPIF_H include 'mpif.h'
#define COMM_T integer
#define REQUEST_T integer
#endif
