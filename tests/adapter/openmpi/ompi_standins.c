/* The objects Open MPI 4.1's mpi.h names (MPI_COMM_WORLD is &ompi_mpi_comm_world,
 * MPI_INT32_T &ompi_mpi_int32_t, ...) that the adapter and the tests use, for
 * adapter_openmpi, which links the stand-in MPI of fake_mpi/ instead of Open MPI's
 * library. mpi.h declares their types incomplete; they are completed here, as empty-ish
 * objects: only their addresses matter. */
#include <mpi.h>

struct ompi_predefined_datatype_t { char unused; };
struct ompi_predefined_communicator_t { const void *class_word; };
struct ompi_predefined_info_t { char unused; };

struct ompi_predefined_communicator_t ompi_mpi_comm_world = { "communicator" };
struct ompi_predefined_info_t ompi_mpi_info_null;

#define DATATYPE(name) struct ompi_predefined_datatype_t ompi_mpi_##name;
DATATYPE(datatype_null)
DATATYPE(char)
DATATYPE(signed_char)
DATATYPE(unsigned_char)
DATATYPE(short)
DATATYPE(unsigned_short)
DATATYPE(int)
DATATYPE(unsigned)
DATATYPE(long)
DATATYPE(unsigned_long)
DATATYPE(long_long_int)
DATATYPE(unsigned_long_long)
DATATYPE(float)
DATATYPE(double)
DATATYPE(int8_t)
DATATYPE(int16_t)
DATATYPE(int32_t)
DATATYPE(int64_t)
DATATYPE(uint8_t)
DATATYPE(uint16_t)
DATATYPE(uint32_t)
DATATYPE(uint64_t)
DATATYPE(aint)
DATATYPE(count)
DATATYPE(offset)
