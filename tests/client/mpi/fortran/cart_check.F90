! reorder_check.c's `cart` and `dist` in Fortran, for the reorder tests:
! `cart_check_f [dist] NX NY`. A periodic NY x NX grid of all the ranks with
! reorder=.true.: MPI_CART_CREATE, or with `dist` MPI_DIST_GRAPH_CREATE_ADJACENT with
! MPI_UNWEIGHTED (left, right, down, up). Then on the new communicator: MPI_CART_GET's
! dims, periods and coordinates and the neighbours by MPI_CART_SHIFT, or
! MPI_DIST_GRAPH_NEIGHBORS (unweighted), and an MPI_NEIGHBOR_ALLTOALL of the ranks.
! Prints "vertex V node N ok" (or "BAD: why") per process, N being HOPMAP_NODE, and
! exits 1 if any process found a problem.
#include "mpi_form.fh"
program cart_check
  USE_MPI
  implicit none
  INCLUDE_MPIF_H
  integer :: ierr, nx, ny, vertex, i, bad, any_bad, world_rank, nargs, indegree, outdegree
  integer :: dims(2), coords(2), want(4), got(4), sent(4), heard(4), mine(4), sources(4)
  integer :: source_weights(4), dest_weights(4)
  logical :: periods(2), dist, weighted
  COMM_T :: topo
  character(len=32) :: arg
  character(len=64) :: node
  character(len=128) :: why

  call MPI_Init(ierr)
  nargs = command_argument_count()
  dist = .false.
  if (nargs == 3) then
    call get_command_argument(1, arg)
    dist = arg == 'dist'
  end if
  if ((nargs /= 2 .and. nargs /= 3) .or. (nargs == 3 .and. .not. dist)) then
    write (0, *) 'usage: cart_check_f [dist] NX NY'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(nargs - 1, arg)
  read (arg, *) nx
  call get_command_argument(nargs, arg)
  read (arg, *) ny
  call MPI_Comm_rank(MPI_COMM_WORLD, world_rank, ierr)
  call neighbours(world_rank, mine)
  if (dist) then
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, mine, MPI_UNWEIGHTED, 4, mine, &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .true., topo, ierr)
  else
    dims = [ny, nx]
    periods = .true.
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., topo, ierr)
  end if
  why = ''
  call MPI_Comm_rank(topo, vertex, ierr)
  call neighbours(vertex, want)
  if (dist) then
    call MPI_Dist_graph_neighbors_count(topo, indegree, outdegree, weighted, ierr)
    if (indegree /= 4 .or. outdegree /= 4 .or. weighted) then
      write (why, '(i0,a,i0,a,l1)') indegree, ' in, ', outdegree, ' out, weighted ', weighted
    else
      ! Weights are not filled in for an unweighted graph.
      call MPI_Dist_graph_neighbors(topo, 4, sources, source_weights, 4, got, dest_weights, ierr)
      do i = 1, 4
        if (len_trim(why) == 0 .and. sources(i) /= want(i)) then
          write (why, '(a,i0,a,i0)') 'source ', i - 1, ' is ', sources(i)
        end if
      end do
    end if
  else
    call MPI_Cart_get(topo, 2, dims, periods, coords, ierr)
    if (dims(1) /= ny .or. dims(2) /= nx .or. .not. periods(1) .or. .not. periods(2)) then
      write (why, '(a,i0,a,i0)') 'MPI_Cart_get: dims ', dims(1), 'x', dims(2)
    else if (coords(1) /= vertex/nx .or. coords(2) /= mod(vertex, nx)) then
      write (why, '(a,i0,a,i0,a)') 'coords (', coords(1), ',', coords(2), ')'
    end if
    ! left, right, down, up: MPI_CART_SHIFT's order in dimensions 1 then 0.
    call MPI_Cart_shift(topo, 1, 1, got(1), got(2), ierr)
    call MPI_Cart_shift(topo, 0, 1, got(3), got(4), ierr)
  end if
  do i = 1, 4
    if (len_trim(why) == 0 .and. got(i) /= want(i)) then
      write (why, '(a,i0,a,i0,a,i0)') 'neighbour ', i - 1, ' is ', got(i), ', not ', want(i)
    end if
  end do
  ! Each sends its rank; each hears its neighbours' (a Cartesian communicator's
  ! dimension 0 first: down, up; a graph's in its own order).
  sent = vertex
  call MPI_Neighbor_alltoall(sent, 1, MPI_INTEGER, heard, 1, MPI_INTEGER, topo, ierr)
  do i = 1, 4
    if (dist) then
      got(i) = want(i)
    else
      got(i) = want(mod(i + 1, 4) + 1)
    end if
    if (len_trim(why) == 0 .and. heard(i) /= got(i)) then
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
contains
  ! Vertex v's left, right, down and up neighbours on the periodic grid.
  subroutine neighbours(v, of)
    integer, intent(in) :: v
    integer, intent(out) :: of(4)
    integer :: x, y
    x = mod(v, nx)
    y = v/nx
    of = [mod(x + nx - 1, nx) + y*nx, mod(x + 1, nx) + y*nx, x + mod(y + ny - 1, ny)*nx, &
          x + mod(y + 1, ny)*nx]
  end subroutine neighbours
end program cart_check
