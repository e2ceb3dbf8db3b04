#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>
static uint64_t now(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec*1000000000ull+ts.tv_nsec;}
int main(void){
  const int N=10000000; volatile uint64_t s=0;
  uint64_t t0=now(); for(int i=0;i<N;i++) s+=now(); uint64_t t1=now();
  printf("clock_gettime(MONOTONIC): %.1f ns\n",(double)(t1-t0)/N);
  t0=now(); for(int i=0;i<N;i++) s+=__rdtsc(); t1=now();
  printf("rdtsc: %.1f ns\n",(double)(t1-t0)/N);
  unsigned a; t0=now(); for(int i=0;i<N;i++) s+=__rdtscp(&a); t1=now();
  printf("rdtscp: %.1f ns\n",(double)(t1-t0)/N);
  struct timespec ts; t0=now(); for(int i=0;i<N;i++){clock_gettime(CLOCK_MONOTONIC_COARSE,&ts);s+=ts.tv_nsec;} t1=now();
  printf("clock_gettime(COARSE): %.1f ns\n",(double)(t1-t0)/N);
  return 0;}
