! reorder_check.c's `cart` in Fortran, for the reorder tests: `cart_check_f NX NY`.
! MPI_CART_CREATE of a periodic NY x NX grid of all the ranks with reorder=.true.,
! then on the new communicator: MPI_CART_GET's dims, periods and coordinates, the
! neighbours by MPI_CART_SHIFT, and an MPI_NEIGHBOR_ALLTOALL of the ranks. Prints
! "vertex V node N ok" (or "BAD: why") per process, N being HOPMAP_NODE, and exits 1
! if any process found a problem.
#include "mpi_form.fh"
program cart_check
  USE_MPI
  implicit none
  INCLUDE_MPIF_H
  integer :: ierr, nx, ny, vertex, i, bad, any_bad, x, y
  integer :: dims(2), coords(2), want(4), got(4), sent(4), heard(4)
  logical :: periods(2)
  COMM_T :: topo
  character(len=32) :: arg
  character(len=64) :: node
  character(len=128) :: why

  call MPI_Init(ierr)
  if (command_argument_count() /= 2) then
    write (0, *) 'usage: cart_check_f NX NY'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, arg)
  read (arg, *) nx
  call get_command_argument(2, arg)
  read (arg, *) ny
  dims = [ny, nx]
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., topo, ierr)
  why = ''
  call MPI_Comm_rank(topo, vertex, ierr)
  x = mod(vertex, nx)
  y = vertex/nx
  ! left, right, down, up: MPI_CART_SHIFT's order in dimensions 1 then 0.
  want = [mod(x + nx - 1, nx) + y*nx, mod(x + 1, nx) + y*nx, x + mod(y + ny - 1, ny)*nx, &
          x + mod(y + 1, ny)*nx]
  call MPI_Cart_get(topo, 2, dims, periods, coords, ierr)
  if (dims(1) /= ny .or. dims(2) /= nx .or. .not. periods(1) .or. .not. periods(2)) then
    write (why, '(a,i0,a,i0)') 'MPI_Cart_get: dims ', dims(1), 'x', dims(2)
  else if (coords(1) /= y .or. coords(2) /= x) then
    write (why, '(a,i0,a,i0,a)') 'coords (', coords(1), ',', coords(2), ')'
  end if
  call MPI_Cart_shift(topo, 1, 1, got(1), got(2), ierr)
  call MPI_Cart_shift(topo, 0, 1, got(3), got(4), ierr)
  do i = 1, 4
    if (len_trim(why) == 0 .and. got(i) /= want(i)) then
      write (why, '(a,i0,a,i0,a,i0)') 'neighbour ', i - 1, ' is ', got(i), ', not ', want(i)
    end if
  end do
  ! Each sends its rank; each hears its neighbours' (dimension 0 first: down, up).
  sent = vertex
  call MPI_Neighbor_alltoall(sent, 1, MPI_INTEGER, heard, 1, MPI_INTEGER, topo, ierr)
  do i = 1, 4
    if (len_trim(why) == 0 .and. heard(i) /= want(mod(i + 1, 4) + 1)) then
      write (why, '(a,i0,a,i0)') 'heard ', heard(i), ' from neighbour ', i - 1
    end if
  end do
  call get_environment_variable('HOPMAP_NODE', node)
  if (len_trim(node) == 0) node = '?'
  if (len_trim(why) == 0) then
    write (*, '(a,i0,a,a,a)') 'vertex ', vertex, ' node ', trim(node), ' ok'
  else
    write (*, '(a,i0,a,a,a,a)') 'vertex ', vertex, ' node ', trim(node), ' BAD: ', trim(why)
  end if
  flush (6)
  bad = 0
  if (len_trim(why) /= 0) bad = 1
  call MPI_Allreduce(bad, any_bad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Comm_free(topo, ierr)
  call MPI_Finalize(ierr)
  if (any_bad /= 0) stop 1
end program cart_check
