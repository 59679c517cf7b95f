! halo.c in Fortran, for the recording tests: `halo_f NX NY [NZ] ITERATIONS DOUBLES`.
! A periodic halo exchange on a 2-D or 3-D Cartesian grid of all the ranks (on a
! duplicate of MPI_COMM_WORLD): every iteration each rank sends DOUBLES doubles to
! each of its 2 x ndims neighbours (dimension 0 with MPI_SENDRECV, 1 with MPI_ISEND,
! 2 with persistent requests), one integer to each with MPI_NEIGHBOR_ALLTOALL, and
! joins one MPI_ALLREDUCE of one double; once, after the exchange, an MPI_GATHER of
! one integer to rank 0 (MPI_IN_PLACE there), an MPI_ALLTOALL of one integer to each
! rank and an MPI_IREDUCE_SCATTER_BLOCK of one integer each: the counts
! mpi_run_test.cc knows.
#include "mpi_form.fh"
program halo
  USE_MPI
  implicit none
  INCLUDE_MPIF_H
  integer :: ierr, nargs, ndims, d, it, iterations, doubles, i, rank, size, reduced
  integer, allocatable :: ones(:), heard(:)
  integer :: mine
  integer, allocatable :: gathered(:)
  REQUEST_T :: request
  integer :: dims(3), lower(3), upper(3), one(6), got(6)
  logical :: periods(3)
  COMM_T :: dup, grid
  REQUEST_T :: r(4), persistent(4)
  double precision, allocatable :: outb(:), inb(:)
  double precision :: x, total
  character(len=32) :: arg

  call MPI_Init(ierr)
  nargs = command_argument_count()
  if (nargs /= 4 .and. nargs /= 5) then
    write (0, *) 'usage: halo_f NX NY [NZ] ITERATIONS DOUBLES'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  ndims = nargs - 2
  dims = 0
  periods = .true.
  do d = 1, ndims
    call get_command_argument(d, arg)
    read (arg, *) dims(d)
  end do
  call get_command_argument(nargs - 1, arg)
  read (arg, *) iterations
  call get_command_argument(nargs, arg)
  read (arg, *) doubles
  allocate (outb(2*doubles), inb(2*doubles))
  outb = 0
  inb = 0
  one = 1
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Cart_create(dup, ndims, dims, periods, .false., grid, ierr)
  do d = 1, ndims
    call MPI_Cart_shift(grid, d - 1, 1, lower(d), upper(d), ierr)
  end do
  if (ndims == 3) then
    call MPI_Send_init(outb(1:doubles), doubles, MPI_DOUBLE_PRECISION, upper(3), 2, grid, &
                       persistent(1), ierr)
    call MPI_Send_init(outb(doubles + 1:), doubles, MPI_DOUBLE_PRECISION, lower(3), 3, grid, &
                       persistent(2), ierr)
    call MPI_Recv_init(inb(1:doubles), doubles, MPI_DOUBLE_PRECISION, lower(3), 2, grid, &
                       persistent(3), ierr)
    call MPI_Recv_init(inb(doubles + 1:), doubles, MPI_DOUBLE_PRECISION, upper(3), 3, grid, &
                       persistent(4), ierr)
  end if
  do it = 1, iterations
    call MPI_Sendrecv(outb, doubles, MPI_DOUBLE_PRECISION, upper(1), 0, inb, doubles, &
                      MPI_DOUBLE_PRECISION, lower(1), 0, grid, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(outb, doubles, MPI_DOUBLE_PRECISION, lower(1), 1, inb, doubles, &
                      MPI_DOUBLE_PRECISION, upper(1), 1, grid, MPI_STATUS_IGNORE, ierr)
    call MPI_Irecv(inb(1:doubles), doubles, MPI_DOUBLE_PRECISION, lower(2), 4, grid, r(1), ierr)
    call MPI_Irecv(inb(doubles + 1:), doubles, MPI_DOUBLE_PRECISION, upper(2), 5, grid, r(2), &
                   ierr)
    call MPI_Isend(outb(1:doubles), doubles, MPI_DOUBLE_PRECISION, upper(2), 4, grid, r(3), ierr)
    call MPI_Isend(outb(doubles + 1:), doubles, MPI_DOUBLE_PRECISION, lower(2), 5, grid, r(4), &
                   ierr)
    call MPI_Waitall(4, r, MPI_STATUSES_IGNORE, ierr)
    if (ndims == 3) then
      call MPI_Startall(4, persistent, ierr)
      call MPI_Waitall(4, persistent, MPI_STATUSES_IGNORE, ierr)
    end if
    call MPI_Neighbor_alltoall(one, 1, MPI_INTEGER, got, 1, MPI_INTEGER, grid, ierr)
    x = 1
    total = 0
    call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, grid, ierr)
  end do
  if (ndims == 3) then
    do i = 1, 4
      call MPI_Request_free(persistent(i), ierr)
    end do
  end if
  call MPI_Comm_rank(grid, rank, ierr)
  call MPI_Comm_size(grid, size, ierr)
  allocate (gathered(size), ones(size), heard(size))
  mine = 1
  gathered = 0
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, grid, ierr)
  else
    call MPI_Gather(mine, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, grid, ierr)
  end if
  ones = 1
  call MPI_Alltoall(ones, 1, MPI_INTEGER, heard, 1, MPI_INTEGER, grid, ierr)
  call MPI_Ireduce_scatter_block(ones, reduced, 1, MPI_INTEGER, MPI_SUM, grid, request, ierr)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_free(grid, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Finalize(ierr)
end program halo
