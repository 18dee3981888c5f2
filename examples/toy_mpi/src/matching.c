/* matching.c -- posted-receive and unexpected-message queues. */
#include "matching.h"

int toympi_match(uint32_t r_ctx, int r_src, int r_tag, uint32_t m_ctx, int m_src, int m_tag)
{
    return r_ctx == m_ctx && (r_src == MPI_ANY_SOURCE || r_src == m_src) &&
           (r_tag == MPI_ANY_TAG || r_tag == m_tag);
}

void toympi_posted_append(toympi_posted_queue_t *q, toympi_request_t *r)
{
    r->next_posted = NULL;
    if (q->tail)
        q->tail->next_posted = r;
    else
        q->head = r;
    q->tail = r;
    q->length++;
}

static void posted_unlink(toympi_posted_queue_t *q, toympi_request_t *prev, toympi_request_t *r)
{
    if (prev)
        prev->next_posted = r->next_posted;
    else
        q->head = r->next_posted;
    if (q->tail == r)
        q->tail = prev;
    r->next_posted = NULL;
    q->length--;
}

toympi_request_t *toympi_posted_match(toympi_posted_queue_t *q, uint32_t ctx, int src, int tag)
{
    toympi_request_t *prev = NULL;
    for (toympi_request_t *r = q->head; r; prev = r, r = r->next_posted) {
        if (toympi_match(r->context_id, r->src, r->tag, ctx, src, tag)) {
            posted_unlink(q, prev, r);
            return r;
        }
    }
    return NULL;
}

int toympi_posted_remove(toympi_posted_queue_t *q, toympi_request_t *r)
{
    toympi_request_t *prev = NULL;
    for (toympi_request_t *p = q->head; p; prev = p, p = p->next_posted) {
        if (p == r) {
            posted_unlink(q, prev, p);
            return 1;
        }
    }
    return 0;
}

void toympi_unexpected_append(toympi_unexpected_queue_t *q, toympi_unexpected_t *u)
{
    u->next = NULL;
    if (q->tail)
        q->tail->next = u;
    else
        q->head = u;
    q->tail = u;
    q->length++;
}

toympi_unexpected_t *toympi_unexpected_match(toympi_unexpected_queue_t *q, uint32_t ctx, int src,
                                             int tag, int remove)
{
    toympi_unexpected_t *prev = NULL;
    for (toympi_unexpected_t *u = q->head; u; prev = u, u = u->next) {
        if (!toympi_match(ctx, src, tag, u->context_id, u->src, u->tag))
            continue;
        if (remove) {
            if (prev)
                prev->next = u->next;
            else
                q->head = u->next;
            if (q->tail == u)
                q->tail = prev;
            u->next = NULL;
            q->length--;
        }
        return u;
    }
    return NULL;
}
