// SPDX-License-Identifier: MIT
/* tp_nolib.c - a program that never touches CUDA: under the recorder it must leave no
 * trace file behind. */
#include <stdio.h>

int main(void)
{
    printf("tp_nolib: nothing to see\n");
    return 0;
}
