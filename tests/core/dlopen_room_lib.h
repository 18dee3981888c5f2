/* core_test_dlopen_room's library (dlopen_room_lib.c): what the test looks up by name. */
#ifndef DLOPEN_ROOM_LIB_H
#define DLOPEN_ROOM_LIB_H
/* Initialises mpitev, declares a source and a type, registers one immediate callback. */
int dlroom_setup(void);
/* On the calling thread: raises once, its callback raising `nested` more times from
 * inside (each from the previous one's callback), then once more; the instances of the
 * first raise's chain that reached the callback, and the drops reported. */
void dlroom_raise(int nested, int *n_delivered, int *n_dropped);
/* Frees the registration and finalizes. */
int dlroom_teardown(void);
typedef int (*dlroom_setup_fn)(void);
typedef void (*dlroom_raise_fn)(int, int *, int *);
typedef int (*dlroom_teardown_fn)(void);
#endif
