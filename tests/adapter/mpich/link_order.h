/* Shared by the link-order test's adapter library and program. */
#ifndef LINK_ORDER_H
#define LINK_ORDER_H
#define LINK_ORDER_NUM_TYPES 3
#endif
